// `cvmfs_server gc` (gc_command.cc; the collector itself is gc.h).
#ifndef PROGRAMS_CVMFS_SERVER_GC_COMMAND_H_
#define PROGRAMS_CVMFS_SERVER_GC_COMMAND_H_

#include <CLI/CLI.hpp>

#include "cvmfs/system_paths.h"

namespace publisher {

void AddGcCommand(CLI::App& app, const cvmfs::SystemPaths& paths);

}  // namespace publisher

#endif  // PROGRAMS_CVMFS_SERVER_GC_COMMAND_H_
