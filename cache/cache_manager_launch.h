// Reaching the cache manager of a shared cache directory from a client:
// connect to <dir>/cachemgr, or start the manager first if none listens
// (doc/format-cache-protocol.md, "2. Starting and stopping").
//
// Connecting and starting are serialized by flock(<dir>/lock_cachemgr), so
// that concurrent first mounts start one manager, and no client connects to
// a manager that is stopping. The manager is started as
//
//   <exe> __cachemgr__ <dir> <limit bytes> <ready fd> [<user>]
//
// double-forked (setsid; a child of init, not of the mount, so it outlives
// a crashed or unmounted client), with stdio on /dev/null and no other
// inherited descriptors. It reports "OK" or its error on the ready fd.
//
// Thread safety: free functions; safe to call from a multi-threaded
// process (only async-signal-safe calls between fork and exec).
#ifndef CACHE_CACHE_MANAGER_LAUNCH_H_
#define CACHE_CACHE_MANAGER_LAUNCH_H_

#include <cstdint>
#include <string>

#include "cvmfs/file_util.h"
#include "cvmfs/status.h"

namespace cache {

inline constexpr char kCacheManagerCommand[] = "__cachemgr__";

struct ManagerLaunch {
  std::string dir;          // the shared cache directory
  int64_t quota_limit = 0;  // bytes, given to a manager started now
  // The program to run (cvmfs2); empty: never start one, only connect.
  std::string exe;
  // CVMFS_USER: a manager started by root switches to this user for good
  // before it touches the cache (cvmfs/credentials.h); empty: stays who
  // started it.
  std::string user;
};

// A connected (not yet greeted) socket to the manager. Unavailable if none
// listens and none could be started, with the manager's own error message.
cvmfs::Result<cvmfs::UniqueFd> ConnectOrStartManager(
    const ManagerLaunch& launch);

}  // namespace cache

#endif  // CACHE_CACHE_MANAGER_LAUNCH_H_
