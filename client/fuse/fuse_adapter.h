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
};

// Mounts `fs` and serves requests until the file system is unmounted or
// the process receives SIGTERM/SIGINT/SIGHUP.
Status RunFuseSession(FileSystem* fs, const FuseOptions& options);

}  // namespace cvmfs::client

#endif  // CLIENT_FUSE_FUSE_ADAPTER_H_
