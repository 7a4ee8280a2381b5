// RepositoryMounts: the two mounts a repository's transactions work through
// (spool_layout.h names the paths):
//
//   spool/rdonly   our client (cvmfs2, the program beside cvmfs_server)
//                  showing one revision, read from the local storage
//                  (file:// URL), pinned by CVMFS_ROOT_HASH in client.local
//   cvmfs/<fqrn>   overlayfs: lowerdir=rdonly, upperdir=scratch/current,
//                  workdir=ofs_workdir; read-only outside a transaction.
//                  Mounted with redirect_dir=off and metacopy=off so that the
//                  upper layer alone says everything a transaction changed
//                  (upper_scanner.h).
//
// The overlay sits on the rdonly mount, so it is always unmounted first and
// mounted last. Mounting needs root (mount(2)), /dev/fuse and overlayfs.
//
// Thread safety: none; one command at a time (under the repository lock).
#ifndef PUBLISHER_REPOSITORY_MOUNTS_H_
#define PUBLISHER_REPOSITORY_MOUNTS_H_

#include <optional>
#include <string>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"
#include "publisher/spool_layout.h"

namespace publisher {

struct MountHealth {
  bool rdonly_mounted = false;
  bool union_mounted = false;
  bool union_writable = false;
  std::optional<cvmfs::Digest> rdonly_root;  // CVMFS_ROOT_HASH of client.local

  bool healthy() const { return rdonly_mounted && union_mounted; }
  // "spool/rdonly is not mounted; ..." for messages ("" when healthy).
  std::string Problems(const SpoolLayout& layout) const;
};

class RepositoryMounts {
 public:
  RepositoryMounts(SpoolLayout layout, std::string fqrn)
      : layout_(std::move(layout)), fqrn_(std::move(fqrn)) {}

  // Ok when this machine can mount (root, /dev/fuse, overlayfs), else
  // NotSupported saying what is missing.
  static cvmfs::Status CheckSupport();
  // cvmfs2 in the directory of the running program.
  static cvmfs::Result<std::string> ClientBinary();

  // Writes spool/client.conf for the rdonly mount.
  cvmfs::Status WriteClientConfig(const std::string& server_url,
                                  const std::string& public_key) const;
  bool HasClientConfig() const;

  cvmfs::Result<MountHealth> Health() const;

  // Mounts the rdonly layer at revision `root` (it must not be mounted).
  cvmfs::Status MountReadOnlyLayer(const cvmfs::Digest& root) const;
  // Unmounts it (if mounted) and waits until the client process released
  // its cache, so that it can be mounted again at once.
  cvmfs::Status UnmountReadOnlyLayer(bool force = false) const;

  cvmfs::Status MountUnion(bool writable) const;
  cvmfs::Status RemountUnion(bool writable) const;
  // Unmounts (if mounted). Busy names the mount point when a process uses
  // it; `force` detaches it lazily instead.
  cvmfs::Status UnmountUnion(bool force = false) const;

  // Empties scratch/current and ofs_workdir (the overlay must be unmounted),
  // and gives scratch/current the attributes of the rdonly root, so that the
  // union's root looks like the published one. The old upper layer is moved
  // to scratch/wastebin (a rename) and removed by a background process, as
  // CVMFS does with CVMFS_ASYNC_SCRATCH_CLEANUP: a publish does not wait for
  // the deletion of everything it published.
  cvmfs::Status ResetScratch() const;

  const SpoolLayout& layout() const { return layout_; }

 private:
  cvmfs::Status WaitForCacheRelease() const;
  // Starts `rm -rf` of the wastebin in a detached process.
  void EmptyWastebinInBackground() const;

  SpoolLayout layout_;
  std::string fqrn_;
};

}  // namespace publisher

#endif  // PUBLISHER_REPOSITORY_MOUNTS_H_
