// `cvmfs_server bundle [FQRN]` (ours): publishes a new revision in which
// every directory has its bundles of small files (doc/format-bundles.md),
// for a repository created before bundles, taken over from CVMFS
// (`cvmfs_server import`) or published with CVMFS_BUNDLES=false. A publish
// only computes the bundles of the directories it changes; this computes
// all of them. Directories whose bundles are already right change nothing.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "publisher/repository.h"

namespace cvmfs_server {
namespace {

struct BundleArgs {
  std::string fqrn;
};

int RunBundle(const cvmfs::SystemPaths& paths, const BundleArgs& args) {
  auto repo_or = OpenRepository(paths, args.fqrn);
  if (!repo_or.ok()) return FailMessage(repo_or.status());
  publisher::Repository& repo = **repo_or;
  publisher::PublishOptions options;
  options.bundle_all_directories = true;
  const auto start = std::chrono::steady_clock::now();
  auto stats = repo.Publish(
      [](publisher::CatalogTree*, publisher::IngestPipeline*) {
        return cvmfs::Status::Ok();
      },
      options);
  if (!stats.ok()) return FailPublish(repo, stats.status());
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  std::printf(
      "published revision %llu (root catalog %s, %zu catalogs rewritten)\n"
      "bundles: %llu directories, %llu new bundles (%.1f MB), %.2f s (%.2f s "
      "in all)\n",
      static_cast<unsigned long long>(stats->revision),
      stats->root_hash.ToString().c_str(), stats->catalogs_written,
      static_cast<unsigned long long>(stats->bundle_directories),
      static_cast<unsigned long long>(stats->bundles_written),
      stats->bundle_bytes / 1e6, stats->bundle_seconds, seconds);
  for (const std::string& w : stats->warnings)
    std::fprintf(stderr, "warning: %s\n", w.c_str());
  FollowCurrentRevision(paths, &repo);
  return 0;
}

}  // namespace

std::vector<Command> AddBundleCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<BundleArgs>();
  auto* cmd = app.add_subcommand(
      "bundle",
      "publish a revision in which every directory has its bundles of small "
      "files (after an import or with CVMFS_BUNDLES turned on)");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunBundle)};
}

}  // namespace cvmfs_server
