// `cvmfs_server resign`, as CVMFS 2.12:
//   [-d DAYS] [-f] [FQRN]  signs the repository's whitelist again with its
//                          master key (Repository::Resign), valid for DAYS
//                          days (default 30); more than 30 days warns and
//                          asks first (-f: without)
//   -p [FQRN]              re-signs .cvmfspublished with the current
//                          repository key (Repository::ResignManifest);
//                          not with -d or -w
//   -w PATH                refused: re-signing a whitelist file outside a
//                          repository is not implemented
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/repository.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;

struct ResignArgs {
  int days = -1;  // -1: not given (30); 0 gives an expired whitelist
  bool force = false;
  bool published = false;  // -p
  std::string fqrn;
};

constexpr int kDefaultDays = 30;

Status RunResign(const cvmfs::SystemPaths& paths, const ResignArgs& args) {
  if (args.published && args.days >= 0)
    return Status::InvalidArgument("cannot use -d with -p");
  CVMFS_ASSIGN_OR_RETURN(std::string fqrn, ResolveFqrn(paths, args.fqrn));
  CVMFS_ASSIGN_OR_RETURN(auto repo, publisher::Repository::Open(paths, fqrn));
  if (args.published) {
    CVMFS_RETURN_IF_ERROR(repo->ResignManifest());
    std::printf("Signing .cvmfspublished of %s... done\n", fqrn.c_str());
    return Status::Ok();
  }
  const int days = args.days >= 0 ? args.days : kDefaultDays;
  if (days > kDefaultDays) {
    std::printf(
        "Warning: whitelist expiration is more than 30 days.\n"
        "Long expirations increase risk from repository key compromises!\n");
    if (!args.force && !Confirm("Are you sure you want to do this"))
      return NotConfirmed("the whitelist was not re-signed");
  }
  CVMFS_RETURN_IF_ERROR(repo->Resign(days));
  std::printf("whitelist of %s re-signed for %d days\n", fqrn.c_str(), days);
  return Status::Ok();
}

}  // namespace

std::vector<Command> AddResignCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<ResignArgs>();
  auto* cmd =
      app.add_subcommand("resign", "re-sign the whitelist with the master key");
  cmd->add_option("-d", args->days, "days until expiration (default 30)")
      ->check(CLI::Range(0, 100000));
  cmd->add_flag("-f", args->force, "don't ask again");
  cmd->add_flag("-p", args->published,
                "re-sign .cvmfspublished instead (after a key change)");
  AddRefusedOption(cmd, "-w",
                   "re-signing a whitelist file outside a repository is not "
                   "implemented",
                   true);
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunResign)};
}

}  // namespace cvmfs_server
