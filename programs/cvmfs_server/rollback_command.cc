// `cvmfs_server rollback [-t TAG] [-f] [FQRN]`: publishes the revision of
// TAG (default trunk-previous) again as a new revision (publisher/
// rollback.h), after a confirmation read from stdin as CVMFS asks it (-f:
// without). Not confirmed (no terminal, nothing piped): nothing changes.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "publisher/repository.h"
#include "publisher/rollback.h"
#include "publisher/transaction.h"

namespace cvmfs_server {
namespace {

struct RollbackArgs {
  std::string tag, fqrn;
  bool force = false;
};

int RunRollback(const cvmfs::SystemPaths& paths, const RollbackArgs& args) {
  auto repo_or = OpenRepository(paths, args.fqrn);
  if (!repo_or.ok()) return FailMessage(repo_or.status());
  publisher::Repository& repo = **repo_or;
  auto target = publisher::RollbackTarget(&repo, args.tag);
  if (!target.ok()) return FailMessage(target.status());
  // Refused before asking, as CVMFS does.
  publisher::Transaction txn(paths, &repo);
  auto state = txn.State();
  if (state.ok() && state->transaction)
    return FailMessage(cvmfs::Status::Busy(
        "a transaction is open on " + repo.config().fqrn +
        "; cannot rollback a repository in a transaction (publish or abort "
        "it first)"));
  if (!args.force) {
    std::string question =
        args.tag.empty()
            ? "You are about to UNDO your last published revision!  Are you "
              "sure"
            : "You are about to ROLLBACK to " + args.tag +
                  " AS THE LATEST REVISION!  Are you sure";
    if (!Confirm(question))
      return FailMessage(NotConfirmed("nothing was rolled back"));
  }
  auto stats = publisher::RollBack(&repo, *target);
  if (!stats.ok()) return FailPublish(repo, stats.status());
  std::printf("rolled back to %s (revision %llu) as revision %llu\n",
              target->name.c_str(),
              static_cast<unsigned long long>(target->revision),
              static_cast<unsigned long long>(stats->revision));
  FollowCurrentRevision(paths, &repo);
  return 0;
}

}  // namespace

std::vector<Command> AddRollbackCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<RollbackArgs>();
  auto* cmd =
      app.add_subcommand("rollback", "republish an earlier tagged revision");
  cmd->add_option("-t", args->tag,
                  "tag to roll back to (default trunk-previous)");
  cmd->add_flag("-f", args->force, "don't ask again");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunRollback)};
}

}  // namespace cvmfs_server
