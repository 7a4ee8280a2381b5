// One mount per repository and cache, as CVMFS: the mounting cvmfs2 holds
// an flock on <cache directory>/lock.<fqrn> for its whole life, so that a
// second cvmfs2 for the same repository (on the same or another mount
// point) fails at once instead of stacking a second FUSE mount whose
// control socket and statistics would describe a different process.
#ifndef CLIENT_REPOSITORY_LOCK_H_
#define CLIENT_REPOSITORY_LOCK_H_

#include <string>

#include "cvmfs/file_util.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

// CVMFS's name: <cache directory>/lock.<fqrn>.
std::string RepositoryLockPath(const std::string& cache_dir,
                               const std::string& fqrn);

// The held lock (released when the descriptor closes); Busy, naming the
// repository, if another process holds it. Creates the cache directory
// (0700) if it is missing.
Result<UniqueFd> LockRepository(const std::string& cache_dir,
                                const std::string& fqrn);

}  // namespace cvmfs::client

#endif  // CLIENT_REPOSITORY_LOCK_H_
