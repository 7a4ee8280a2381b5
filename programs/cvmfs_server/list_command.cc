// `cvmfs_server list`: the repositories on this machine, one line each:
// "FQRN (stratum0 / local[ - in transaction][ - mounts missing])", or a
// replica's line (replica_status.h).
#include <cstdio>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "server/replication/replica_status.h"

namespace cvmfs_server {
namespace {

std::string ReplicaLine(const cvmfs::SystemPaths& paths,
                        const std::string& name) {
  auto replica = replication::LoadReplicaStatus(paths, name);
  if (!replica.ok())
    return name + " (stratum1 / local - " + replica.status().ToString() + ")";
  return replication::ReplicaListLine(*replica);
}

int RunList(const cvmfs::SystemPaths& paths) {
  auto names = cvmfs::ListDirectory(paths.RepositoriesD());
  if (!names.ok()) return 0;
  for (const std::string& n : *names) {
    if (replication::IsReplica(paths, n))
      std::printf("%s\n", ReplicaLine(paths, n).c_str());
    else
      std::printf("%s (stratum0 / local%s)\n", n.c_str(),
                  DescribeTransactionState(paths, n).c_str());
  }
  return 0;
}

}  // namespace

std::vector<Command> AddListCommand(CLI::App& app, const Paths& paths) {
  auto* cmd =
      app.add_subcommand("list", "list the repositories on this machine");
  return {{cmd, [p = &paths] { return RunList(*p); }}};
}

}  // namespace cvmfs_server
