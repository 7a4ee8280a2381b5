// `cvmfs_server gc` (gc_command.cc; the collector itself is gc.h).
#ifndef PUBLISHER_GC_COMMAND_H_
#define PUBLISHER_GC_COMMAND_H_

#include <CLI/CLI.hpp>

#include "cvmfs/system_paths.h"

namespace publisher {

void AddGcCommand(CLI::App& app, const cvmfs::SystemPaths& paths);

}  // namespace publisher

#endif  // PUBLISHER_GC_COMMAND_H_
