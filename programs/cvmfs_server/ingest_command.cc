// `cvmfs_server ingest -t TARBALL -b BASE_DIR [-d PATH]... [-c] [FQRN]` or
// `cvmfs_server ingest -d PATH... [FQRN]`, as CVMFS 2.12: publishes a
// tarball (tar_ingest.h) into a directory of the repository as a new
// revision, after deleting the -d paths (or only deletes them), and prints
// what the publish did.
//   -t, --tar_file   the tarball, - for stdin; needs -b
//   -b, --base_dir   where it goes; needs -t
//   -d, --delete     a path to delete first (repeatable)
//   -c, --catalog    make the base directory a nested catalog
//   -k, --keep-ownership  the owners and groups of the tarball are kept;
//                    that is what this ingest always does
//   -u, -g           refused: changing the owner of the ingested entries is
//                    not implemented (they keep the tarball's, as with -k)
// On a publisher machine of a gateway the ingest leases the base directory
// (or the one -d path) for itself and sends the change to the gateway.
#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "programs/cvmfs_server/auto_gc.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/command_progress.h"
#include "programs/cvmfs_server/commands.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "publisher/gateway_publish.h"
#include "publisher/repository.h"
#include "publisher/tar_ingest.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;

struct IngestArgs {
  publisher::TarIngestOptions options;
  bool catalog = false;         // -c
  bool keep_ownership = false;  // -k: what happens anyway
  std::string fqrn;
};

long PeakRssKb() {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

void PrintPublishStats(const publisher::PublishStats& s, double seconds) {
  double mb = s.bytes_in / 1e6;
  std::printf(
      "published revision %llu (root catalog %s, %zu catalogs written)\n",
      static_cast<unsigned long long>(s.revision),
      s.root_hash.ToString().c_str(), s.catalogs_written);
  std::printf(
      "files: %llu, input: %.1f MB, new objects: %llu (%.1f MB), existing "
      "objects: %llu\n",
      static_cast<unsigned long long>(s.files), mb,
      static_cast<unsigned long long>(s.objects_stored), s.bytes_stored / 1e6,
      static_cast<unsigned long long>(s.objects_existing));
  std::printf("time: %.2f s, %.1f MB/s, %.0f files/s, peak RSS %ld MB\n",
              seconds, seconds > 0 ? mb / seconds : 0.0,
              seconds > 0 ? s.files / seconds : 0.0, PeakRssKb() / 1024);
  if (s.bundle_directories > 0)
    std::printf(
        "bundles: %llu directories, %llu new bundles (%.1f MB), %.2f s\n",
        static_cast<unsigned long long>(s.bundle_directories),
        static_cast<unsigned long long>(s.bundles_written),
        s.bundle_bytes / 1e6, s.bundle_seconds);
  if (s.stale_temporaries_removed > 0)
    std::printf("removed %zu temporaries left by killed publishes\n",
                s.stale_temporaries_removed);
  if (s.objects_recognized > 0)
    std::printf(
        "%llu existing objects recognized without compressing (content "
        "index)\n",
        static_cast<unsigned long long>(s.objects_recognized));
  for (const std::string& w : s.warnings)
    std::fprintf(stderr, "warning: %s\n", w.c_str());
}

// On a publisher machine of a gateway the ingest leases one path, as
// CVMFS's: the base directory of the tarball, or the one path to delete.
cvmfs::Result<std::string> GatewayLeasePath(
    const publisher::TarIngestOptions& o) {
  if (!o.tarball.empty() && !o.delete_paths.empty())
    return Status::InvalidArgument(
        "through a gateway, an ingest either adds a tarball (-t/-b) or "
        "deletes (-d), as each leases its own path: run two ingests");
  if (o.delete_paths.size() > 1)
    return Status::InvalidArgument(
        "through a gateway, an ingest deletes one path (-d), the one it "
        "leases: run one ingest per path");
  CVMFS_ASSIGN_OR_RETURN(
      std::string path,
      publisher::NormalizeRepoPath(o.tarball.empty() ? o.delete_paths[0]
                                                     : o.base_dir));
  return path.empty() ? "/" : path;
}

int RunIngest(const cvmfs::SystemPaths& paths, const IngestArgs& args) {
  const publisher::TarIngestOptions& o = args.options;
  if (o.tarball.empty() && o.base_dir.empty() && o.delete_paths.empty())
    return FailMessage(Status::InvalidArgument(
        "give -t TARBALL -b BASE_DIR to ingest a tarball and/or -d PATH to "
        "delete"));
  if (o.tarball.empty() != o.base_dir.empty())
    return FailMessage(Status::InvalidArgument(
        o.tarball.empty()
            ? "-b needs the tarball to extract (-t)"
            : "-t needs the base directory to extract into (-b)"));
  if (args.catalog && o.tarball.empty())
    return FailMessage(
        Status::InvalidArgument("-c needs a tarball and base directory"));
  auto repo_or = OpenRepository(paths, args.fqrn);
  if (!repo_or.ok()) return FailMessage(repo_or.status());
  publisher::Repository& repo = **repo_or;
  publisher::TarIngestOptions ingest = args.options;
  ingest.fqrn = repo.config().fqrn;
  ingest.include_xattrs = repo.config().include_xattrs;
  ingest.ignore_special_files = repo.config().ignore_special_files;
  ingest.hash_algorithm = repo.config().hash_algorithm;
  ingest.compression = repo.config().compression;
  ingest.external_data = repo.config().external_data;
  std::string lease;  // on a publisher machine of a gateway
  if (repo.config().on_gateway()) {
    auto path = GatewayLeasePath(ingest);
    if (!path.ok()) return FailMessage(path.status());
    lease = *path;
  }
  auto progress = CommandProgress::Start("ingest", "files");
  if (!progress.ok()) return FailMessage(progress.status());
  publisher::PublishOptions publish_options;
  publish_options.progress = (*progress)->counters();
  auto start = std::chrono::steady_clock::now();
  const publisher::Repository::BuildFn build =
      [&](publisher::CatalogTree* tree,
          publisher::IngestPipeline* pipeline) -> Status {
    if (ingest.tarball.empty()) {  // -d only
      for (const std::string& d : ingest.delete_paths) {
        CVMFS_ASSIGN_OR_RETURN(std::string path,
                               publisher::NormalizeRepoPath(d));
        if (path.empty())
          return Status::InvalidArgument(
              "-d: refusing to delete the repository root");
        CVMFS_RETURN_IF_ERROR(tree->Remove(path).Annotate("-d " + d));
      }
      return Status::Ok();
    }
    CVMFS_RETURN_IF_ERROR(publisher::IngestTar(ingest, tree, pipeline));
    if (args.catalog) {
      auto base = publisher::NormalizeRepoPath(ingest.base_dir);
      if (!base.ok()) return base.status();
      return tree->CreateNestedCatalog(*base);
    }
    return Status::Ok();
  };
  auto stats = lease.empty()
                   ? repo.Publish(build, publish_options)
                   : publisher::PublishUnderLease(
                         &repo,
                         publisher::SpoolLayout::For(paths, ingest.fqrn,
                                                     repo.config().spool_dir),
                         lease, build, publish_options);
  (*progress)->Finish();
  if (!stats.ok()) return FailPublish(repo, stats.status());
  double secs =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  PrintPublishStats(*stats, secs);
  FollowCurrentRevision(paths, &repo);
  const std::string fqrn = repo.config().fqrn;
  repo_or->reset();  // releases the lock for the collection
  RunAutoGc(paths, fqrn);
  return 0;
}

}  // namespace

std::vector<Command> AddIngestCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<IngestArgs>();
  publisher::TarIngestOptions& o = args->options;
  auto* cmd =
      app.add_subcommand("ingest", "publish a tarball into a directory");
  cmd->add_option("-t,--tar_file", o.tarball, "tarball, or - for stdin");
  cmd->add_option("-b,--base_dir", o.base_dir, "target directory");
  cmd->add_option("-d,--delete,--to_delete", o.delete_paths,
                  "path to delete first (repeatable)")
      ->allow_extra_args(false);
  cmd->add_flag("-c,--catalog", args->catalog,
                "create a nested catalog in the base directory");
  cmd->add_flag("-k,--keep-ownership", args->keep_ownership,
                "keep the tarball's owners (what ingest always does)");
  AddRefusedOption(cmd, "-u,--user",
                   "changing the owner of ingested entries is not "
                   "implemented; they keep the tarball's (as with -k)",
                   true);
  AddRefusedOption(cmd, "-g,--group",
                   "changing the group of ingested entries is not "
                   "implemented; they keep the tarball's (as with -k)",
                   true);
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunIngest)};
}

}  // namespace cvmfs_server
