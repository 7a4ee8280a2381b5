// CVMFS_AUTO_GC: the garbage collection that runs by itself after a
// publish (publish, ingest) of a Stratum 0 and after a snapshot of a
// Stratum 1, as CVMFS's cvmfs_server does. It runs when the repository is
// garbage-collectable (CVMFS_GARBAGE_COLLECTION=true), CVMFS_AUTO_GC=true
// and the last collection (last_gc in .cvmfs_status.json) is older than
// CVMFS_AUTO_GC_LAPSE (default "1 day ago"), keeping what
// CVMFS_AUTO_GC_TIMESPAN says (default "3 days ago"), as `gc -f` would.
// The caller has released the repository's lock. A failed collection is
// reported on stderr and does not undo or fail the publish.
#ifndef PROGRAMS_CVMFS_SERVER_AUTO_GC_H_
#define PROGRAMS_CVMFS_SERVER_AUTO_GC_H_

#include <string>

#include "cvmfs/system_paths.h"

namespace cvmfs_server {

void RunAutoGc(const cvmfs::SystemPaths& paths, const std::string& fqrn);

}  // namespace cvmfs_server

#endif  // PROGRAMS_CVMFS_SERVER_AUTO_GC_H_
