// The cvmfs_server subcommands of the serving component:
//
//   serve [-p PORT] [-a ADDRESS] [-l ACCESS_LOG] [-t THREADS] [FQRN...]
//       serves the storage of the named repositories (all of this machine's
//       without names) over HTTP until SIGTERM or SIGINT (serve_command.cc)
//   squid-config [-n NETWORK]... [-s STRATUM1]... [options]
//       prints a squid.conf for a site proxy (squid_command.cc)
//
// They follow programs/cvmfs_server/command_util.h: a failing callback prints the
// reason and ends the program through CLI::RuntimeError(exit status).
#ifndef PROGRAMS_CVMFS_SERVER_SERVING_COMMANDS_H_
#define PROGRAMS_CVMFS_SERVER_SERVING_COMMANDS_H_

#include <CLI/CLI.hpp>

#include "cvmfs/system_paths.h"

namespace server {

void AddServeCommand(CLI::App& app, const cvmfs::SystemPaths& paths);
void AddSquidConfigCommand(CLI::App& app);

inline void AddServingCommands(CLI::App& app, const cvmfs::SystemPaths& paths) {
  AddServeCommand(app, paths);
  AddSquidConfigCommand(app);
}

}  // namespace server

#endif  // PROGRAMS_CVMFS_SERVER_SERVING_COMMANDS_H_
