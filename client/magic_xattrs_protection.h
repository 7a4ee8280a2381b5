// Which magic attributes only some groups may read, as CVMFS's
// CVMFS_XATTR_PROTECTED_XATTRS (full names, e.g. "user.fqrn") and
// CVMFS_XATTR_PRIVILEGED_GIDS (numeric group ids): a protected attribute
// read by a process whose (main) gid is not privileged answers "no such
// attribute" (ENOATTR), as in CVMFS, which checks the gid alone (root
// included). listxattr still names it.
//
// Thread safety: a plain value; built once at mount, read-only after.
#ifndef CLIENT_MAGIC_XATTRS_PROTECTION_H_
#define CLIENT_MAGIC_XATTRS_PROTECTION_H_

#include <sys/types.h>

#include <optional>
#include <set>
#include <string>

#include "cvmfs/status.h"

namespace cvmfs::client {

struct MagicXattrsProtection {
  std::set<std::string> protected_names;
  std::set<gid_t> privileged_gids;

  // Whether a caller with group `gid` may read `name`; nullopt is a caller
  // inside the client (cvmfs_talk, tests), always allowed.
  bool Allows(const std::string& name, std::optional<gid_t> gid) const {
    return !gid || protected_names.count(name) == 0 ||
           privileged_gids.count(*gid) > 0;
  }
};

// "user.fqrn,user.pubkeys": names separated by ',' (blanks around them
// ignored); an empty list protects nothing.
std::set<std::string> ParseProtectedXattrs(const std::string& list);
// "0,1000": numeric gids separated by ','; InvalidArgument naming the
// offending element otherwise.
Result<std::set<gid_t>> ParsePrivilegedGids(const std::string& list);

}  // namespace cvmfs::client

#endif  // CLIENT_MAGIC_XATTRS_PROTECTION_H_
