// cvmfs_server add-replica and snapshot (replica.h does the work).
//
//   add-replica [-o owner] [-n alias] STRATUM0_URL PUBKEY
//   snapshot [-a] [NAME]
//
// Each callback ends the program (CLI::RuntimeError carries the exit status,
// 0 included) so that main() does nothing after it. `paths` must outlive
// `app`.
#ifndef PROGRAMS_CVMFS_SERVER_REPLICA_COMMAND_H_
#define PROGRAMS_CVMFS_SERVER_REPLICA_COMMAND_H_

#include <CLI/CLI.hpp>

#include "cvmfs/system_paths.h"

namespace replication {

void AddAddReplicaCommand(CLI::App& app, const cvmfs::SystemPaths& paths);
void AddSnapshotCommand(CLI::App& app, const cvmfs::SystemPaths& paths);

}  // namespace replication

#endif  // PROGRAMS_CVMFS_SERVER_REPLICA_COMMAND_H_
