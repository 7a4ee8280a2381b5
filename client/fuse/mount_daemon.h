// MountDaemon: what cvmfs2 does once its command line is parsed: reads the
// configuration ($CVMFS_ROOTDIR/etc/cvmfs in CVMFS's order, then the files
// named by config=), mounts the repository (RepositoryMount), serves it over
// FUSE (fuse_adapter.h) with the control socket for cvmfs_talk, and keeps
// the revision updater running while mounted. Unless `foreground`, it forks
// first: the calling process exits once the repository is mounted (or with
// the reason it could not be), the child serves in the background.
//
// Messages: errors to stderr ("cvmfs2: ...") while there is a terminal,
// CVMFS_DEBUGLOG and syslog for the daemon's life.
#ifndef CLIENT_FUSE_MOUNT_DAEMON_H_
#define CLIENT_FUSE_MOUNT_DAEMON_H_

#include <string>
#include <vector>

namespace cvmfs::client {

// The command line of cvmfs2 (programs/cvmfs2_main.cc parses it).
struct MountDaemonOptions {
  std::string fqrn, mountpoint;
  std::vector<std::string> config_files;  // config=FILE[:FILE...]
  std::vector<std::string> fuse_options;  // other -o options, for FUSE
  bool foreground = false;                // -f
  bool debug = false;                     // -d: FUSE debug output
};

// Mounts and serves until the repository is unmounted; returns cvmfs2's
// exit code (0 unmounted cleanly, 1 failed). Does not return in the parent
// of the fork when not in the foreground (it exits with the mount's code).
int RunMountDaemon(const MountDaemonOptions& cl);

}  // namespace cvmfs::client

#endif  // CLIENT_FUSE_MOUNT_DAEMON_H_
