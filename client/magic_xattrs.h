// MagicXattrs: CVMFS's "user.*" attributes that describe the mount rather
// than an entry (user.fqrn, user.revision, user.host, ...), and the
// per-file ones (user.hash, user.chunks, user.rawlink, ...), as listed in
// doc/client.md. Values are computed on request from the FileSystem's state.
//
// Thread safety: a short-lived view; create one per request.
#ifndef CLIENT_MAGIC_XATTRS_H_
#define CLIENT_MAGIC_XATTRS_H_

#include <string>
#include <vector>

#include "client/inode_table.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

class FileSystem;

// The version the client reports (user.version, cvmfs_talk version).
inline constexpr const char* kClientVersion = "2.12.0";

class MagicXattrs {
 public:
  MagicXattrs(FileSystem* fs, const InodeInfo& info) : fs_(fs), info_(info) {}

  // NotFound for names that are not magic (or do not apply to this entry).
  Result<std::string> Get(const std::string& name) const;
  // True for every magic name ("user.fqrn", ...), whatever the entry.
  static bool IsMagic(const std::string& name);
  // The magic names that apply to this entry, with the "user." prefix.
  std::vector<std::string> Names() const;

 private:
  std::string PrefetchSummary() const;
  FileSystem* fs_;
  const InodeInfo& info_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_MAGIC_XATTRS_H_
