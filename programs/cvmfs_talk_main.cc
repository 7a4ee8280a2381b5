// cvmfs_talk: sends a command to the control socket of mounted
// repositories and prints the reply (talk_commands.h lists the commands).
//
//   cvmfs_talk [-i FQRN | -p SOCKET] COMMAND...
//
// With -i the socket is found from the repository's configuration; with -p
// it is given; with neither, the command goes to every repository mounted
// by this CVMFS_ROOTDIR (root_mounts.h), each reply preceded by the
// repository's name; the exit code is 0 if every one answered.
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "client/talk/talk_socket.h"
#include "client/tools/mount_table.h"
#include "client/tools/repository_config.h"
#include "client/tools/root_mounts.h"
#include "cvmfs/system_paths.h"

namespace {

void Usage(std::ostream& out) {
  out << "Usage: cvmfs_talk [-i FQRN | -p SOCKET] COMMAND...\n"
         "Sends COMMAND to a mounted repository (to all of them without "
         "-i/-p).\n"
         "  -i FQRN     the repository, whose socket the configuration names\n"
         "  -p SOCKET   the socket (cvmfs_io.<fqrn> in the cache directory)\n"
         "Commands: cache size | cache instance | cache list [pinned|catalogs] "
         "|\n"
         "  cache limit get | cache limit set <MB> | cleanup <MB> | evict "
         "<path> |\n"
         "  pin <path> | revision | remount [sync] | open catalogs | max ttl "
         "info |\n"
         "  max ttl set <minutes> | host info | host switch | host set <urls> "
         "|\n"
         "  host probe geo |\n"
         "  proxy info | proxy switch | proxy set <proxies> | timeout info |\n"
         "  timeout set <proxy> [<direct>] | internal affairs | reset error "
         "counters |\n"
         "  parameters | pid | pid cachemgr | mountpoint | version |\n"
         "  metrics prometheus |\n"
         "  prefetch info | prefetch record start|stop|status | prefetch "
         "lists\n";
}

// Sends and prints; false if the repository did not answer.
bool Talk(const std::string& socket, const std::string& command,
          const std::string& label) {
  auto reply = cvmfs::client::TalkRequest(socket, command);
  if (!reply.ok()) {
    std::cerr << "Seems like CernVM-FS is not running in " << socket << " ("
              << reply.status().message() << ")\n";
    return false;
  }
  if (!label.empty()) std::cout << label << ":\n";
  std::cout << *reply << std::flush;
  return true;
}

std::string SocketOf(const cvmfs::SystemPaths& paths, const std::string& name) {
  auto global = cvmfs::tools::LoadGlobalOptions(paths);
  std::string fqrn = global.ok() ? cvmfs::tools::MakeFqrn(name, *global) : name;
  auto config = cvmfs::tools::LoadRepositoryConfig(paths, fqrn);
  if (!config.ok()) {
    std::cerr << "cvmfs_talk: configuration of " << fqrn << ": "
              << config.status().message() << "\n";
    return "";
  }
  return config->socket;
}

}  // namespace

int main(int argc, char** argv) {
  std::string fqrn, socket, command;
  int i = 1;
  for (; i < argc; ++i) {
    std::string a = argv[i];
    if ((a == "-i" || a == "-p") && i + 1 < argc) {
      (a == "-i" ? fqrn : socket) = argv[++i];
    } else if (a == "-h" || a == "--help") {
      Usage(std::cout);
      return 0;
    } else {
      break;
    }
  }
  for (; i < argc; ++i)
    command += (command.empty() ? "" : " ") + std::string(argv[i]);
  if (command.empty() || (!fqrn.empty() && !socket.empty())) {
    Usage(std::cerr);
    return 1;
  }
  const cvmfs::SystemPaths paths = cvmfs::SystemPaths::FromEnvironment();
  if (!socket.empty()) return Talk(socket, command, "") ? 0 : 1;
  if (!fqrn.empty()) {
    socket = SocketOf(paths, fqrn);
    return !socket.empty() && Talk(socket, command, "") ? 0 : 1;
  }
  auto all = cvmfs::tools::ListCvmfsMounts();
  const std::vector<cvmfs::tools::RootMount> mounts =
      all.ok() ? cvmfs::tools::MountsOfRoot(*all, paths)
               : std::vector<cvmfs::tools::RootMount>();
  if (mounts.empty()) {
    std::cerr << "cvmfs_talk: no mounted repository found\n";
    return 1;
  }
  bool all_ok = true;
  std::set<std::string> done;  // one socket answers for one repository
  for (const cvmfs::tools::RootMount& m : mounts) {
    if (!done.insert(m.mount.fqrn).second) continue;
    socket = m.socket.empty() ? SocketOf(paths, m.mount.fqrn) : m.socket;
    const bool ok = !socket.empty() && Talk(socket, command, m.mount.fqrn);
    all_ok = all_ok && ok;
  }
  return all_ok ? 0 : 1;
}
