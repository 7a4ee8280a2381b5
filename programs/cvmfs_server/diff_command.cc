// `cvmfs_server diff [-m] [-h] [-s FROM] [-d TO] [-i] [FQRN]`, as CVMFS
// 2.12 (cvmfs_publish diff): what changed between two tagged revisions
// (diff.h): one line per changed path, then the statistics deltas.
//   -s TAG  source revision (default trunk-previous)
//   -d TAG  destination revision (default trunk)
//   -m, --machine-readable  tab-separated lines (diff.h, FormatChange)
//   -h, --header            first a header line (DELTA: from --> to, or
//                           with -m the legend of the line descriptors)
//   -i, --ignore-timediff   ignore changes of timestamps alone
//   -w, --worktree          refused: the diff of an open transaction is not
//                           supported (publish it, then diff)
//   -k, --keychain          refused: the keys are the repository's own
// -h is an option here, so help is --help only.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/file_util.h"
#include "cvmfs/time_format.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/diff.h"
#include "publisher/repository.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;
using publisher::DiffOptions;
using publisher::DiffSummary;
using publisher::PathChange;

struct DiffArgs {
  std::string from = std::string(cvmfs::kTagTrunkPrevious);
  std::string to = std::string(cvmfs::kTagTrunk);
  bool machine_readable = false;
  bool header = false;
  bool ignore_timestamps = false;
  bool worktree = false;
  std::string keychain;
  std::string fqrn;
};

std::string UtcTime(int64_t t) {
  return cvmfs::FormatTime(t, "%d %b %Y %H:%M:%S UTC", cvmfs::TimeZone::kUtc);
}

cvmfs::Result<cvmfs::Tag> FindTag(cvmfs::HistoryDb* history,
                                  const std::string& name) {
  CVMFS_ASSIGN_OR_RETURN(auto tag, history->Get(name));
  if (tag) return *tag;
  std::string hint = name == cvmfs::kTagTrunkPrevious
                         ? " (the repository has a single revision so far)"
                         : " (see cvmfs_server tag -l)";
  return Status::NotFound("tag " + name + " does not exist" + hint);
}

void PrintHeader(const cvmfs::Tag& from, const cvmfs::Tag& to,
                 bool machine_readable) {
  if (machine_readable) {
    std::printf(
        "# line descriptor: A - add, R - remove, M - modify, S - statistics; "
        "modify flags: "
        "I - link count, S - size, M - mode, O - owner, T - timestamp, L - "
        "symlink target, "
        "C - content, G - hardlink group, N - nested catalog, P - chunked, X - "
        "xattrs, "
        "E - external, B - bind mountpoint, H - hidden; entry types: F - "
        "regular file, "
        "S - symbolic link, D - directory, U - other, N - nested catalog\n");
    return;
  }
  std::printf("DELTA: %s/r%llu (%s) --> %s/r%llu (%s)\n", from.name.c_str(),
              static_cast<unsigned long long>(from.revision),
              UtcTime(from.timestamp).c_str(), to.name.c_str(),
              static_cast<unsigned long long>(to.revision),
              UtcTime(to.timestamp).c_str());
}

Status RunDiff(const cvmfs::SystemPaths& paths, const DiffArgs& args) {
  if (args.worktree)
    return Status::NotSupported(
        "diff -w (unpublished changes of the open transaction) is not "
        "supported; publish, then diff the two revisions");
  if (!args.keychain.empty())
    return Status::NotSupported(
        "diff -k is not supported: the repository's own public key is used");
  CVMFS_ASSIGN_OR_RETURN(auto repo, OpenRepository(paths, args.fqrn));
  CVMFS_ASSIGN_OR_RETURN(auto history, repo->OpenHistory(false));
  CVMFS_ASSIGN_OR_RETURN(cvmfs::Tag from, FindTag(history.get(), args.from));
  CVMFS_ASSIGN_OR_RETURN(cvmfs::Tag to, FindTag(history.get(), args.to));
  history.reset();
  CVMFS_ASSIGN_OR_RETURN(std::string temp_dir, repo->MakeTempDir());
  cvmfs::ScopedRemoveTree remove_temp_dir(temp_dir);

  if (args.header) PrintHeader(from, to, args.machine_readable);
  DiffOptions options;
  options.ignore_timestamps = args.ignore_timestamps;
  CVMFS_ASSIGN_OR_RETURN(
      DiffSummary summary,
      publisher::DiffRevisions(
          repo->store(), from.root_hash, to.root_hash, temp_dir, options,
          [&](const PathChange& c) {
            std::printf(
                "%s\n",
                publisher::FormatChange(c, args.machine_readable).c_str());
          }));
  std::printf(
      "%s",
      publisher::FormatDelta(summary.delta, args.machine_readable).c_str());
  return Status::Ok();
}

}  // namespace

std::vector<Command> AddDiffCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<DiffArgs>();
  auto* cmd = app.add_subcommand(
      "diff", "show what changed between two tagged revisions");
  cmd->set_help_flag("--help");
  cmd->add_option("-s", args->from, "source tag (default trunk-previous)");
  cmd->add_option("-d", args->to, "destination tag (default trunk)");
  cmd->add_flag("-m,--machine-readable", args->machine_readable,
                "tab-separated output");
  cmd->add_flag("-h,--header", args->header, "show the header line");
  cmd->add_flag("-i,--ignore-timediff", args->ignore_timestamps,
                "ignore timestamp-only changes");
  cmd->add_flag("-w,--worktree", args->worktree,
                "diff of the open transaction (not supported)");
  cmd->add_option("-k,--keychain", args->keychain,
                  "public key directory (not supported)");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunDiff)};
}

}  // namespace cvmfs_server
