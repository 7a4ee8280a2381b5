// `cvmfs_server diff` (diff_command.cc; the comparison itself is diff.h).
#ifndef PROGRAMS_CVMFS_SERVER_DIFF_COMMAND_H_
#define PROGRAMS_CVMFS_SERVER_DIFF_COMMAND_H_

#include <CLI/CLI.hpp>

#include "cvmfs/system_paths.h"

namespace publisher {

void AddDiffCommand(CLI::App& app, const cvmfs::SystemPaths& paths);

}  // namespace publisher

#endif  // PROGRAMS_CVMFS_SERVER_DIFF_COMMAND_H_
