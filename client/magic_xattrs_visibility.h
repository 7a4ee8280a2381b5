// Where listxattr names the magic attributes, as CVMFS's
// CVMFS_MAGIC_XATTRS_VISIBILITY: on every entry, on the repository's root
// only (the default, so that cp -a, rsync -X and tar --xattrs copy no magic
// values), or nowhere. They can be read by name everywhere.
#ifndef CLIENT_MAGIC_XATTRS_VISIBILITY_H_
#define CLIENT_MAGIC_XATTRS_VISIBILITY_H_

#include <string>

#include "cvmfs/status.h"

namespace cvmfs::client {

enum class MagicXattrsVisibility { kAlways, kRootOnly, kNever };

// "always", "rootonly" or "never", in any case; InvalidArgument else.
Result<MagicXattrsVisibility> ParseMagicXattrsVisibility(
    const std::string& value);

}  // namespace cvmfs::client

#endif  // CLIENT_MAGIC_XATTRS_VISIBILITY_H_
