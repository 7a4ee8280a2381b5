// `cvmfs_server resign [-d DAYS] [FQRN]`: signs the repository's whitelist
// again with its master key (Repository::Resign), valid for DAYS days.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/repository.h"

namespace cvmfs_server {
namespace {

struct ResignArgs {
  int days = 30;
  std::string fqrn;
};

int RunResign(const cvmfs::SystemPaths& paths, const ResignArgs& args) {
  auto fqrn = ResolveFqrn(paths, args.fqrn);
  if (!fqrn.ok()) return FailMessage(fqrn.status());
  auto repo = publisher::Repository::Open(paths, *fqrn);
  if (!repo.ok()) return FailMessage(repo.status());
  cvmfs::Status st = (*repo)->Resign(args.days);
  if (!st.ok()) return FailMessage(st);
  std::printf("whitelist of %s re-signed for %d days\n", fqrn->c_str(),
              args.days);
  return 0;
}

}  // namespace

std::vector<Command> AddResignCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<ResignArgs>();
  auto* cmd =
      app.add_subcommand("resign", "re-sign the whitelist with the master key");
  cmd->add_option("-d", args->days, "validity in days");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunResign)};
}

}  // namespace cvmfs_server
