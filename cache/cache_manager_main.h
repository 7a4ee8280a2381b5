// The cache manager program:
// `cvmfs2 __cachemgr__ <dir> <limit> [<fd> [<user>]]`
// (cache_manager_launch.h starts it). Serves the shared cache `dir` with a
// quota of `limit` bytes until its last client has gone, logging to
// <dir>/cachemgr.log; reports "OK" or its start-up error on `fd`.
// SIGTERM and SIGINT stop it cleanly (cachedb written). Started by root
// with a <user> (CVMFS_USER), it switches to that user for good first: no
// capability and no root id is left (cvmfs/credentials.h).
#ifndef CACHE_CACHE_MANAGER_MAIN_H_
#define CACHE_CACHE_MANAGER_MAIN_H_

namespace cache {

// `argv` holds the arguments after "__cachemgr__". Returns the exit code.
int CacheManagerMain(int argc, char** argv);

}  // namespace cache

#endif  // CACHE_CACHE_MANAGER_MAIN_H_
