// The FUSE low-level adapter: the only file that includes <fuse_lowlevel.h>.
//
// Each handler takes the FileSystem from the request's userdata, makes one
// call, maps the Status to an errno (NotFound → negative entry or ENOENT /
// ENODATA; every other failure → EIO) and replies exactly once.
#ifndef CLIENT_FUSE_FUSE_ADAPTER_H_
#define CLIENT_FUSE_FUSE_ADAPTER_H_

#include <functional>
#include <string>
#include <vector>

#include "client/file_system.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

struct FuseOptions {
  std::string mountpoint;
  // Mount options for the kernel/libfuse ("ro", "allow_other", ...).
  std::vector<std::string> mount_options;
  bool debug = false;
  int max_idle_threads = 16;
  // FUSE worker threads at most (cvmfs2: CVMFS_MAX_CONNECTIONS, >= 64).
  int max_threads = 64;
  // CVMFS_ENFORCE_ACLS: negotiate POSIX ACLs, so that the kernel checks the
  // ACLs stored in catalogs (needs "default_permissions").
  bool enforce_acls = false;
  // Called once the file system is mounted (before serving requests), or
  // with the error if mounting failed.
  std::function<void(const Status&)> on_mounted;
  // Called when the session ends, before it is unmounted and destroyed
  // (stop threads that may still notify the kernel).
  std::function<void()> on_stopping;
  // Called right after mount(2), before on_mounted (cvmfs2 switches to
  // CVMFS_USER here). If it fails, the file system is unmounted again and
  // on_mounted gets its error.
  std::function<Status()> after_mount;
  // The process cannot unmount once after_mount has run (it gave up root):
  // when the session ends, the unmount is left to root (umount(8),
  // cvmfs_config umount, autofs). A session ended by a signal then leaves a
  // mount whose connection is closed, and on_left_mounted is called.
  bool root_unmounts = false;
  std::function<void()> on_left_mounted;
};

// Mounts `fs` and serves requests until the file system is unmounted or
// the process receives SIGTERM/SIGINT/SIGHUP.
Status RunFuseSession(FileSystem* fs, const FuseOptions& options);

}  // namespace cvmfs::client

#endif  // CLIENT_FUSE_FUSE_ADAPTER_H_
