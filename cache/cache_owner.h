// Handing a cache directory to the user the client runs as (CVMFS_USER),
// before the client switches to it (doc/security.md, "Running
// unprivileged").
//
// Thread safety: a free function; run it before the switch, as root.
#ifndef CACHE_CACHE_OWNER_H_
#define CACHE_CACHE_OWNER_H_

#include <string>

#include "cvmfs/credentials.h"
#include "cvmfs/status.h"

namespace cache {

struct OwnerChange {
  bool taken_over = false;  // the directory belonged to someone else
  int entries = 0;          // entries chowned (with the directory itself)
};

// Creates the parents of `dir` (0755, so that the user can reach it) and
// `dir` itself (0700), and makes `user` its owner. A directory another
// uid owns, such as the cache of a client that ran as root, is taken
// over: every entry below it is chowned to the user (symbolic links
// themselves, never their targets, and not across file systems), as
// `chown -R` would. InvalidArgument if `dir` is a symbolic link or not a
// directory. The parent (CVMFS_CACHE_BASE), if root's and closed to the
// user, is made searchable (a+x); a directory further up that the user
// cannot pass is a Permission error naming it.
cvmfs::Result<OwnerChange> HandCacheTo(const std::string& dir,
                                       const cvmfs::UserIds& user);

}  // namespace cache

#endif  // CACHE_CACHE_OWNER_H_
