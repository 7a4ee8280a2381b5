// `cvmfs_server check [-c] [-t TAG] [FQRN]`: verifies the catalogs and
// objects of the current (or TAG's) revision (publisher/check.h). Problems
// go to stderr, one "ERROR:" line each; exit status 1 when there are any.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/check.h"
#include "publisher/repository.h"
#include "publisher/tags.h"

namespace cvmfs_server {
namespace {

struct CheckArgs {
  std::string fqrn, tag;
  bool content = false;
};

int RunCheck(const cvmfs::SystemPaths& paths, const CheckArgs& args) {
  auto repo_or = OpenRepository(paths, args.fqrn);
  if (!repo_or.ok()) return FailMessage(repo_or.status());
  publisher::Repository& repo = **repo_or;
  auto manifest = repo.CurrentManifest();
  if (!manifest.ok()) return FailMessage(manifest.status());
  auto tmp = repo.MakeTempDir();
  if (!tmp.ok()) return FailMessage(tmp.status());
  cvmfs::ScopedRemoveTree remove_tmp(*tmp);

  cvmfs::Digest root = manifest->manifest.root_catalog;
  if (!args.tag.empty()) {
    auto tag = publisher::FindTag(&repo, args.tag);
    if (!tag.ok()) return FailMessage(tag.status());
    root = tag->root_hash;
  }
  std::printf("Verifying revision with root catalog %s%s\n",
              root.ToString().c_str(),
              args.content ? " (with content hashes)" : "");
  auto report =
      publisher::CheckRevision(repo.store(), root, args.content, *tmp);
  if (!report.ok()) return FailMessage(report.status());
  for (const std::string& p : report->problems)
    std::fprintf(stderr, "ERROR: %s\n", p.c_str());
  std::printf(
      "%llu catalogs, %llu entries, %llu objects checked, %zu problems\n",
      static_cast<unsigned long long>(report->catalogs),
      static_cast<unsigned long long>(report->entries),
      static_cast<unsigned long long>(report->objects_checked),
      report->problems.size());
  return report->problems.empty() ? 0 : 1;
}

}  // namespace

std::vector<Command> AddCheckCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd =
      app.add_subcommand("check", "verify a revision's catalogs and objects");
  cmd->add_flag("-c", args->content, "also verify object content hashes");
  cmd->add_option("-t", args->tag, "check the revision of this tag");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunCheck)};
}

}  // namespace cvmfs_server
