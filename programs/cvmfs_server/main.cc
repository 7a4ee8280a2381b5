// cvmfs_server: the publisher's command line, with CVMFS's command names and
// options. Each subcommand lives in its own file (commands.h) and follows
// command.h: main() registers them all, parses, runs the one that was given
// and returns its exit status.
#include <CLI/CLI.hpp>
#include <utility>
#include <vector>

#include "cvmfs/system_paths.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"

int main(int argc, char** argv) {
  const cvmfs::SystemPaths paths = cvmfs::SystemPaths::FromEnvironment();
  CLI::App app{
      "cvmfs_server: create, publish and maintain CernVM-FS repositories"};
  app.require_subcommand(1);

  std::vector<cvmfs_server::Command> commands;
  for (cvmfs_server::AddCommandsFn add : cvmfs_server::kCommandFamilies)
    for (cvmfs_server::Command& command : add(app, paths))
      commands.push_back(std::move(command));

  // Usage errors and --help end here, the way CLI11 ends them.
  CLI11_PARSE(app, argc, argv);
  return cvmfs_server::RunGivenCommand(commands);
}
