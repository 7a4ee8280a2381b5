// `cvmfs_server rmfs [-p] [-f] FQRN`, as CVMFS 2.12: removes a repository
// after a confirmation (-f: without).
//   without -p  its spool area, configuration, storage and keys (master
//               key, public key, repository key and certificate): all of it
//   -p          only its spool area and configuration; the storage (the
//               published data) and the keys stay, e.g. for a later import
// The name is validated before any path is made of it (RunGivenCommand,
// ServerConfig::Load).
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "publisher/repository.h"
#include "publisher/server_config.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;

struct RmfsArgs {
  std::string fqrn;
  bool force = false;
  bool preserve = false;  // -p
};

Status RemoveKeys(const publisher::ServerConfig& cfg) {
  publisher::KeyFiles keys = publisher::KeyFiles::In(cfg.keys_dir, cfg.fqrn);
  for (const std::string& file :
       {keys.master_key, keys.master_pub, keys.repo_key, keys.repo_crt,
        cfg.keys_dir + "/" + cfg.fqrn + ".gw"}) {
    if (::unlink(file.c_str()) != 0 && errno != ENOENT)
      return Status::FromErrno(errno, "removing " + file);
  }
  return Status::Ok();
}

Status RunRmfs(const cvmfs::SystemPaths& paths, const RmfsArgs& args) {
  CVMFS_ASSIGN_OR_RETURN(publisher::ServerConfig cfg,
                         publisher::ServerConfig::Load(paths, args.fqrn));
  if (!args.force) {
    std::string question =
        args.preserve
            ? "You are about to REMOVE THE CERNVM-FS REPOSITORY "
              "INFRASTRUCTURE for " +
                  args.fqrn + " (its data and keys stay)!  Are you sure"
            : "You are about to WIPE OUT THE CERNVM-FS REPOSITORY " +
                  args.fqrn + " INCLUDING SIGNING KEYS (" + cfg.storage_dir +
                  ")!  Are you sure";
    if (!Confirm(question)) return NotConfirmed("nothing was removed");
  }
  CVMFS_RETURN_IF_ERROR(
      TearDownTransactions(paths, args.fqrn, cfg.spool_dir, args.force));
  std::vector<std::string> dirs = {cfg.spool_dir,
                                   paths.ServerConfigDir(args.fqrn)};
  if (!args.preserve && !cfg.storage_dir.empty())
    dirs.push_back(cfg.storage_dir);  // none on S3 or behind a gateway
  for (const std::string& dir : dirs)
    CVMFS_RETURN_IF_ERROR(cvmfs::RemoveTree(dir));
  if (!args.preserve) CVMFS_RETURN_IF_ERROR(RemoveKeys(cfg));
  if (args.preserve)
    std::printf("removed repository %s; its data (%s) and keys (%s) stay\n",
                args.fqrn.c_str(), cfg.storage_dir.c_str(),
                cfg.keys_dir.c_str());
  else
    std::printf("CernVM-FS repository %s wiped out\n", args.fqrn.c_str());
  return Status::Ok();
}

}  // namespace

std::vector<Command> AddRmfsCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<RmfsArgs>();
  auto* cmd = app.add_subcommand(
      "rmfs", "remove a repository (with -p: keep its data and keys)");
  cmd->add_flag("-f", args->force, "don't ask again");
  cmd->add_flag("-p", args->preserve, "preserve the repository data and keys");
  cmd->add_option("fqrn", args->fqrn, "repository name")->required();
  return {MakeCommand(cmd, paths, args, RunRmfs)};
}

}  // namespace cvmfs_server
