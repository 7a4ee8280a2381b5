// `cvmfs_server rmfs [-f] FQRN`: removes a repository's storage, spool
// area and configuration after a confirmation (-f: without). Its keys stay.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "publisher/server_config.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;

struct RmfsArgs {
  std::string fqrn;
  bool force = false;
};

bool Confirm(const std::string& fqrn, const std::string& storage_dir) {
  std::printf("Remove repository %s with all its revisions (%s)? [y/N] ",
              fqrn.c_str(), storage_dir.c_str());
  std::fflush(stdout);
  std::string reply;
  return std::getline(std::cin, reply) && (reply == "y" || reply == "Y");
}

int RunRmfs(const cvmfs::SystemPaths& paths, const RmfsArgs& args) {
  auto cfg = publisher::ServerConfig::Load(paths, args.fqrn);
  if (!cfg.ok()) return FailMessage(cfg.status());
  if (!args.force && !Confirm(args.fqrn, cfg->storage_dir))
    return FailMessage(
        Status::InvalidArgument("not confirmed; nothing was removed"));
  Status unmounted =
      TearDownTransactions(paths, args.fqrn, cfg->spool_dir, args.force);
  if (!unmounted.ok()) return FailMessage(unmounted);
  for (const std::string& dir :
       {cfg->storage_dir, cfg->spool_dir, paths.ServerConfigDir(args.fqrn)}) {
    Status st = cvmfs::RemoveTree(dir);
    if (!st.ok()) return FailMessage(st);
  }
  std::printf("removed repository %s\n", args.fqrn.c_str());
  return 0;
}

}  // namespace

std::vector<Command> AddRmfsCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<RmfsArgs>();
  auto* cmd =
      app.add_subcommand("rmfs", "remove a repository (storage, keys stay)");
  cmd->add_flag("-f", args->force, "do not ask");
  cmd->add_option("fqrn", args->fqrn, "repository name")->required();
  return {MakeCommand(cmd, paths, args, RunRmfs)};
}

}  // namespace cvmfs_server
