// `cvmfs_server prefetch-list` (prefetch_list_command.cc; the lists
// themselves: prefetch_lists.h).
#ifndef PUBLISHER_PREFETCH_LIST_COMMAND_H_
#define PUBLISHER_PREFETCH_LIST_COMMAND_H_

#include <CLI/CLI.hpp>

#include "cvmfs/system_paths.h"

namespace publisher {

void AddPrefetchListCommand(CLI::App& app, const cvmfs::SystemPaths& paths);

}  // namespace publisher

#endif  // PUBLISHER_PREFETCH_LIST_COMMAND_H_
