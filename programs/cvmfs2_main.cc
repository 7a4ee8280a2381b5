// cvmfs2: mounts one repository (the same command line as CVMFS's cvmfs2).
//
//   cvmfs2 [-f] [-d] -o config=FILE[:FILE...][,mount options] FQRN MOUNTPOINT
//
// Configuration comes from $CVMFS_ROOTDIR/etc/cvmfs in CVMFS's order, then
// from the files named by config=. Unless -f is given the program returns
// once the repository is mounted (or with the reason it could not be), and
// keeps serving in the background.
#include <cstring>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "cache/cache_manager_launch.h"
#include "cache/cache_manager_main.h"
#include "client/fuse/mount_daemon.h"
#include "client/magic_xattrs.h"
#include "cvmfs/status.h"
#include "cvmfs/text.h"

namespace {

using cvmfs::Status;

using CommandLine = cvmfs::client::MountDaemonOptions;

void Usage(std::ostream& out) {
  out << "Usage: cvmfs2 [-f] [-d] -o config=FILE[:FILE...][,OPTION...] FQRN "
         "MOUNTPOINT\n"
         "Mounts the CernVM-FS repository FQRN at MOUNTPOINT (read-only).\n"
         "  -f   stay in the foreground\n"
         "  -d   FUSE debug output (implies -f)\n"
         "  -o   comma-separated options: config=FILE[:FILE...] adds "
         "configuration files;\n"
         "       other options go to FUSE (allow_other, ...)\n";
}

// Options of CVMFS's loader that make no difference here.
bool IsLoaderOption(const std::string& o) {
  static const std::set<std::string> kIgnored = {"system_mount",
                                                 "grab_mountpoint",
                                                 "cvmfs_suid",
                                                 "disable_watchdog",
                                                 "simple_options_parsing",
                                                 "nodev",
                                                 "ro",
                                                 "rw",
                                                 "defaults",
                                                 "_netdev",
                                                 "noauto",
                                                 "auto",
                                                 "user",
                                                 "nouser",
                                                 "exec",
                                                 "noexec",
                                                 "suid",
                                                 "nosuid",
                                                 "dev"};
  return kIgnored.count(o) || o.rfind("uid=", 0) == 0 ||
         o.rfind("gid=", 0) == 0 || o.rfind("libfuse=", 0) == 0;
}

cvmfs::Result<CommandLine> ParseCommandLine(int argc, char** argv) {
  CommandLine cl;
  std::vector<std::string> positional;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "-f") {
      cl.foreground = true;
    } else if (a == "-d") {
      cl.debug = cl.foreground = true;
    } else if (a == "-o" && i + 1 < argc) {
      for (const std::string& o : cvmfs::SplitNonEmpty(argv[++i], ",")) {
        if (o.rfind("config=", 0) == 0) {
          for (const std::string& f : cvmfs::SplitNonEmpty(o.substr(7), ":"))
            cl.config_files.push_back(f);
        } else if (o == "foreground") {
          cl.foreground = true;
        } else if (o == "debug" || o == "fuse_debug") {
          cl.debug = cl.foreground = true;
        } else if (!IsLoaderOption(o)) {
          cl.fuse_options.push_back(o);
        }
      }
    } else if (!a.empty() && a[0] == '-') {
      return Status::InvalidArgument("unknown option " + a);
    } else {
      positional.push_back(a);
    }
  }
  if (positional.size() != 2)
    return Status::InvalidArgument("expected FQRN and MOUNTPOINT");
  cl.fqrn = positional[0];
  cl.mountpoint = positional[1];
  return cl;
}

}  // namespace

int main(int argc, char** argv) {
  // Hidden mode: the cache manager of a shared cache, started by a mount.
  if (argc > 1 && std::strcmp(argv[1], cache::kCacheManagerCommand) == 0)
    return cache::CacheManagerMain(argc - 2, argv + 2);
  if (argc > 1 && (std::strcmp(argv[1], "-h") == 0 ||
                   std::strcmp(argv[1], "--help") == 0)) {
    Usage(std::cout);
    return 0;
  }
  if (argc > 1 && (std::strcmp(argv[1], "-V") == 0 ||
                   std::strcmp(argv[1], "--version") == 0)) {
    std::cout << "CernVM-FS version " << cvmfs::client::kClientVersion
              << " (cvmfs-ng)\n";
    return 0;
  }
  auto cl = ParseCommandLine(argc, argv);
  if (!cl.ok()) {
    std::cerr << "cvmfs2: " << cl.status().message() << "\n";
    Usage(std::cerr);
    return 2;
  }
  return cvmfs::client::RunMountDaemon(*cl);
}
