// `cvmfs_server prefetch-list` (prefetch_list_command.cc; the lists
// themselves: prefetch_lists.h).
#ifndef PROGRAMS_CVMFS_SERVER_PREFETCH_LIST_COMMAND_H_
#define PROGRAMS_CVMFS_SERVER_PREFETCH_LIST_COMMAND_H_

#include <CLI/CLI.hpp>

#include "cvmfs/system_paths.h"

namespace publisher {

void AddPrefetchListCommand(CLI::App& app, const cvmfs::SystemPaths& paths);

}  // namespace publisher

#endif  // PROGRAMS_CVMFS_SERVER_PREFETCH_LIST_COMMAND_H_
