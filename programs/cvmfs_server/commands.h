// Every cvmfs_server subcommand, by the file that holds it (mkfs in
// mkfs_command.cc, ...). Each function follows command.h: it adds its
// subcommands to `app` and returns their Commands. main() registers them in
// the order of kCommandFamilies, which is the order of `cvmfs_server --help`.
#ifndef PROGRAMS_CVMFS_SERVER_COMMANDS_H_
#define PROGRAMS_CVMFS_SERVER_COMMANDS_H_

#include <CLI/CLI.hpp>
#include <vector>

#include "cvmfs/system_paths.h"
#include "programs/cvmfs_server/command.h"

namespace cvmfs_server {

using Paths = cvmfs::SystemPaths;

// Stratum 0: create, publish into and maintain a repository.
std::vector<Command> AddMkfsCommand(CLI::App& app, const Paths& paths);
// import_command.cc: take over an existing repository's storage and keys.
std::vector<Command> AddImportCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddIngestCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddTagCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddRollbackCommand(CLI::App& app, const Paths& paths);
// bundle_command.cc: every directory's bundles of small files.
std::vector<Command> AddBundleCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddResignCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddInfoCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddListCatalogsCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddCheckCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddRmfsCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddListCommand(CLI::App& app, const Paths& paths);

// Stratum 1 (replica_command.cc): add-replica, snapshot.
std::vector<Command> AddReplicaCommands(CLI::App& app, const Paths& paths);

// Serving: serve (serve_command.cc), squid-config (squid_command.cc).
std::vector<Command> AddServeCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddSquidConfigCommand(CLI::App& app, const Paths& paths);

std::vector<Command> AddGcCommand(CLI::App& app, const Paths& paths);
std::vector<Command> AddDiffCommand(CLI::App& app, const Paths& paths);
// transaction_commands.cc: transaction, publish, abort, mount.
std::vector<Command> AddTransactionCommands(CLI::App& app, const Paths& paths);
// prefetch-list add, remove, refresh, list.
std::vector<Command> AddPrefetchListCommand(CLI::App& app, const Paths& paths);

// What main() registers, in this order.
inline constexpr AddCommandsFn kCommandFamilies[] = {
    AddMkfsCommand,         AddIngestCommand,       AddTagCommand,
    AddRollbackCommand,     AddResignCommand,       AddInfoCommand,
    AddListCatalogsCommand, AddCheckCommand,        AddRmfsCommand,
    AddListCommand,         AddReplicaCommands,     AddServeCommand,
    AddSquidConfigCommand,  AddGcCommand,           AddDiffCommand,
    AddTransactionCommands, AddPrefetchListCommand, AddImportCommand,
    AddBundleCommand,
};

}  // namespace cvmfs_server

#endif  // PROGRAMS_CVMFS_SERVER_COMMANDS_H_
