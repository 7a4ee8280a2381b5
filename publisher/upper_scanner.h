// ScanUpperLayer: what a transaction changed, read from the overlayfs upper
// layer (scratch/current) alone, never from the whole repository.
//
// overlayfs (Documentation/filesystems/overlayfs.rst) records, in the upper
// layer:
//   - new and changed entries as themselves: a file written, chmod-ed,
//     chown-ed or touched is copied up whole (we mount with metacopy=off);
//     the parent directories of a change are copied up too;
//   - deletions as whiteouts: a character device 0/0 with the deleted name
//     (or, written by other tools, a ".wh.<name>" entry);
//   - a directory whose lower content is hidden ("opaque": created where a
//     deleted entry was, e.g. after `rm -r d; mkdir d`) by the xattr
//     <prefix>opaque = "y" (or a ".wh..wh..opq" entry in it);
//   - a renamed directory: with redirect_dir=off (our mount) the kernel
//     refuses the rename and `mv` copies: a new directory plus a whiteout.
//     A redirect xattr (a layer made with redirect_dir=on) cannot be
//     published from the upper layer alone and is an error, as is a
//     metacopy-only file.
//
// Entries are visited depth first, a directory before what it contains
// (whiteouts first, then the other entries, by name), so a consumer can
// apply them in order: removing the old content of an opaque directory
// before its new content arrives.
//
// Extended attributes: only "user.*" ones are reported, without overlayfs's
// own and without the magic attributes our client shows on the read-only
// layer (user.hash, user.revision, ...; they are copied up with the file and
// describe the old revision, not the content).
//
// Thread safety: a free function; the visitor runs on the calling thread.
#ifndef PUBLISHER_UPPER_SCANNER_H_
#define PUBLISHER_UPPER_SCANNER_H_

#include <sys/stat.h>

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/status.h"

namespace publisher {

struct UpperEntry {
  enum class Kind { kWhiteout, kDirectory, kRegular, kSymlink, kSpecial };
  Kind kind = Kind::kRegular;
  std::string path;        // in the repository: "" for the root, else "/a/b"
  std::string upper_path;  // on disk (for whiteouts: the whiteout itself)
  struct stat st {};       // lstat() of the upper entry (not for whiteouts)
  // Regular files: the file, open for reading while the visitor runs (the
  // scanner closes it afterwards; dup() it to keep it).
  int fd = -1;
  bool opaque = false;  // directory: replaces the lower one entirely
  std::string symlink;  // symlink target
  std::vector<std::pair<std::string, std::string>> xattrs;
};

struct UpperScanOptions {
  // "trusted.overlay." for a normal mount, "user.overlay." with `userxattr`.
  std::string overlay_xattr_prefix = "trusted.overlay.";
  bool include_xattrs = true;
};

using UpperVisitor = std::function<cvmfs::Status(const UpperEntry&)>;

// Visits every change recorded in `upper_dir`; stops at the first error of
// the scan or of the visitor.
cvmfs::Status ScanUpperLayer(const std::string& upper_dir,
                             const UpperScanOptions& options,
                             const UpperVisitor& visit);

// True for the magic attribute names of CVMFS clients ("user.hash", ...).
bool IsClientMagicXattr(const std::string& name);

}  // namespace publisher

#endif  // PUBLISHER_UPPER_SCANNER_H_
