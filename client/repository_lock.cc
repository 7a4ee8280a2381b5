#include "client/repository_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>

namespace cvmfs::client {

std::string RepositoryLockPath(const std::string& cache_dir,
                               const std::string& fqrn) {
  return JoinPath(cache_dir, "lock." + fqrn);
}

Result<UniqueFd> LockRepository(const std::string& cache_dir,
                                const std::string& fqrn) {
  CVMFS_RETURN_IF_ERROR(MakeDirs(cache_dir, 0700));
  const std::string path = RepositoryLockPath(cache_dir, fqrn);
  UniqueFd fd(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + path);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      return Status::Busy(fqrn + " is already mounted (" + path +
                          " is held by another cvmfs2; cvmfs_talk -i " + fqrn +
                          " mountpoint names where)");
    return Status::FromErrno(errno, "flock " + path);
  }
  return fd;
}

}  // namespace cvmfs::client
