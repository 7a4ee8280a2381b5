// cvmfs_server: the publisher's command line, with CVMFS's command names and
// options. A thin layer: each subcommand parses its options and calls the
// publisher library.
#include <sys/resource.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <iostream>

#include "cvmfs/catalog_walker.h"
#include "cvmfs/file_util.h"
#include "cvmfs/system_paths.h"
#include "cvmfs/time_format.h"
#include "publisher/check.h"
#include "programs/cvmfs_server/command_util.h"
#include "programs/cvmfs_server/diff_command.h"
#include "programs/cvmfs_server/gc_command.h"
#include "programs/cvmfs_server/prefetch_list_command.h"
#include "publisher/repository.h"
#include "publisher/tar_ingest.h"
#include "programs/cvmfs_server/transaction_commands.h"
#include "server/mkfs_configs.h"
#include "programs/cvmfs_server/replica_command.h"
#include "server/replication/replica_status.h"
#include "programs/cvmfs_server/serving_commands.h"

namespace {

using cvmfs::Status;
using publisher::Repository;

int Fail(const Status& st) { return publisher::FailMessage(st); }

// A failed publish leaves the served revision as it was; say which it is.
int FailPublish(Repository& repo, const Status& st) {
  int rc = Fail(st);
  auto m = repo.CurrentManifest();
  if (m.ok())
    std::fprintf(
        stderr,
        "cvmfs_server: nothing was published; %s stays at revision %llu\n",
        repo.config().fqrn.c_str(),
        static_cast<unsigned long long>(m->manifest.revision));
  return rc;
}

using publisher::ResolveFqrn;

std::string FormatTime(int64_t t) {
  return cvmfs::FormatTime(t, "%a %b %d %H:%M:%S %Y", cvmfs::TimeZone::kLocal);
}

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

}  // namespace

int main(int argc, char** argv) {
  const cvmfs::SystemPaths paths = cvmfs::SystemPaths::FromEnvironment();
  CLI::App app{
      "cvmfs_server: create, publish and maintain CernVM-FS repositories"};
  app.require_subcommand(1);

  // mkfs
  publisher::MkfsOptions mkfs;
  std::string mkfs_hash = "sha1", mkfs_compr = "zlib";
  auto* mkfs_cmd = app.add_subcommand("mkfs", "create a new repository");
  mkfs_cmd->add_option("-o", mkfs.owner, "owner of the repository");
  mkfs_cmd->add_option("-w", mkfs.stratum0_url, "stratum 0 URL");
  mkfs_cmd->add_option("-a", mkfs_hash,
                       "hash algorithm: sha1, rmd160, shake128");
  mkfs_cmd->add_option("-Z", mkfs_compr, "compression: zlib, none");
  mkfs_cmd->add_flag("-z", mkfs.garbage_collection,
                     "make the repository garbage-collectable");
  mkfs_cmd->add_option("fqrn", mkfs.fqrn, "repository name")->required();

  // ingest
  publisher::TarIngestOptions ingest;
  bool ingest_catalog = false;
  std::string ingest_fqrn;
  auto* ingest_cmd =
      app.add_subcommand("ingest", "publish a tarball into a directory");
  ingest_cmd
      ->add_option("-t,--tar_file", ingest.tarball, "tarball, or - for stdin")
      ->required();
  ingest_cmd->add_option("-b,--base_dir", ingest.base_dir, "target directory")
      ->required();
  ingest_cmd
      ->add_option("-d,--to_delete", ingest.delete_paths,
                   "path to delete first")
      ->allow_extra_args(false);
  ingest_cmd->add_flag("-c,--catalog", ingest_catalog,
                       "make the base directory a nested catalog");
  ingest_cmd->add_option("fqrn", ingest_fqrn, "repository name");

  // tag
  std::string tag_add, tag_msg, tag_rm, tag_info, tag_fqrn, tag_hash;
  bool tag_list = false, tag_force = false;
  auto* tag_cmd =
      app.add_subcommand("tag", "create, list or remove named snapshots");
  tag_cmd->set_help_flag("--help");
  tag_cmd->add_option("-a", tag_add,
                      "add a tag for the current (or -h) revision");
  tag_cmd->add_option("-m", tag_msg, "description of the new tag");
  tag_cmd->add_option("-h", tag_hash, "root catalog hash to tag");
  tag_cmd->add_option("-r", tag_rm, "remove a tag");
  tag_cmd->add_option("-i", tag_info, "show a tag");
  tag_cmd->add_flag("-l", tag_list, "list tags");
  tag_cmd->add_flag("-f", tag_force, "do not ask");
  tag_cmd->add_option("fqrn", tag_fqrn, "repository name");

  // rollback
  std::string rb_tag, rb_fqrn;
  bool rb_force = false;
  auto* rb_cmd =
      app.add_subcommand("rollback", "republish an earlier tagged revision");
  rb_cmd->add_option("-t", rb_tag,
                     "tag to roll back to (default trunk-previous)");
  rb_cmd->add_flag("-f", rb_force, "do not ask");
  rb_cmd->add_option("fqrn", rb_fqrn, "repository name");

  // resign
  int resign_days = 30;
  std::string resign_fqrn;
  auto* resign_cmd =
      app.add_subcommand("resign", "re-sign the whitelist with the master key");
  resign_cmd->add_option("-d", resign_days, "validity in days");
  resign_cmd->add_option("fqrn", resign_fqrn, "repository name");

  // info, list-catalogs, check, rmfs, list
  std::string info_fqrn;
  auto* info_cmd = app.add_subcommand("info", "show repository information");
  info_cmd->add_option("fqrn", info_fqrn, "repository name");

  std::string lc_fqrn;
  bool lc_size = false, lc_entries = false, lc_hash = false;
  auto* lc_cmd = app.add_subcommand(
      "list-catalogs", "list the catalogs of the current revision");
  lc_cmd->add_flag("-s", lc_size, "print catalog sizes");
  lc_cmd->add_flag("-e", lc_entries, "print entry counts");
  lc_cmd->add_flag("-x", lc_hash, "print catalog hashes");
  lc_cmd->add_option("fqrn", lc_fqrn, "repository name");

  std::string check_fqrn, check_tag;
  bool check_content = false;
  auto* check_cmd =
      app.add_subcommand("check", "verify a revision's catalogs and objects");
  check_cmd->add_flag("-c", check_content, "also verify object content hashes");
  check_cmd->add_option("-t", check_tag, "check the revision of this tag");
  check_cmd->add_option("fqrn", check_fqrn, "repository name");

  std::string rmfs_fqrn;
  bool rmfs_force = false;
  auto* rmfs_cmd =
      app.add_subcommand("rmfs", "remove a repository (storage, keys stay)");
  rmfs_cmd->add_flag("-f", rmfs_force, "do not ask");
  rmfs_cmd->add_option("fqrn", rmfs_fqrn, "repository name")->required();

  auto* list_cmd =
      app.add_subcommand("list", "list the repositories on this machine");

  // Commands in their own files (command_util.h), one line each:
  replication::AddAddReplicaCommand(app, paths);
  replication::AddSnapshotCommand(app, paths);
  server::AddServingCommands(app, paths);
  publisher::AddGcCommand(app, paths);
  publisher::AddDiffCommand(app, paths);
  publisher::AddTransactionCommands(app, paths);
  publisher::AddPrefetchListCommand(app, paths);

  CLI11_PARSE(app, argc, argv);
  // A subcommand from its own file has run in its callback: nothing more.
  const bool own_command = *mkfs_cmd || *ingest_cmd || *tag_cmd || *rb_cmd ||
                           *resign_cmd || *info_cmd || *lc_cmd || *check_cmd ||
                           *rmfs_cmd || *list_cmd;
  if (!own_command) return 0;

  if (*mkfs_cmd) {
    auto algo = cvmfs::ParseAlgorithmName(mkfs_hash);
    if (!algo.ok()) return Fail(algo.status());
    auto compr = cvmfs::ParseCompressionName(mkfs_compr);
    if (!compr.ok()) return Fail(compr.status());
    mkfs.hash_algorithm = *algo;
    mkfs.compression = *compr;
    Status st = publisher::Mkfs(paths, mkfs);
    if (!st.ok()) return Fail(st);
    std::printf("created repository %s (storage %s)\n", mkfs.fqrn.c_str(),
                paths.Storage(mkfs.fqrn).c_str());
    if (int rc = server::WriteServingConfigsAfterMkfs(paths, mkfs.fqrn))
      return rc;
    if (Status t = publisher::SetUpTransactions(paths, mkfs.fqrn); !t.ok())
      return Fail(t);
    return 0;
  }

  if (*list_cmd) {
    auto names = cvmfs::ListDirectory(paths.RepositoriesD());
    if (names.ok())
      for (auto& n : *names) {
        if (replication::IsReplica(paths, n)) {
          auto replica = replication::LoadReplicaStatus(paths, n);
          std::printf("%s\n",
                      replica.ok()
                          ? replication::ReplicaListLine(*replica).c_str()
                          : (n + " (stratum1 / local - " +
                             replica.status().ToString() + ")")
                                .c_str());
          continue;
        }
        std::printf("%s (stratum0 / local%s)\n", n.c_str(),
                    publisher::DescribeTransactionState(paths, n).c_str());
      }
    return 0;
  }

  if (*rmfs_cmd) {
    auto cfg = publisher::ServerConfig::Load(paths, rmfs_fqrn);
    if (!cfg.ok()) return Fail(cfg.status());
    if (!rmfs_force) {
      std::printf("Remove repository %s with all its revisions (%s)? [y/N] ",
                  rmfs_fqrn.c_str(), cfg->storage_dir.c_str());
      std::fflush(stdout);
      std::string reply;
      if (!std::getline(std::cin, reply) || (reply != "y" && reply != "Y"))
        return Fail(
            Status::InvalidArgument("not confirmed; nothing was removed"));
    }
    Status unmounted = publisher::TearDownTransactions(
        paths, rmfs_fqrn, cfg->spool_dir, rmfs_force);
    if (!unmounted.ok()) return Fail(unmounted);
    for (const std::string& dir :
         {cfg->storage_dir, cfg->spool_dir, paths.ServerConfigDir(rmfs_fqrn)}) {
      Status st = cvmfs::RemoveTree(dir);
      if (!st.ok()) return Fail(st);
    }
    std::printf("removed repository %s\n", rmfs_fqrn.c_str());
    return 0;
  }

  std::string given;
  for (auto* cmd :
       {ingest_cmd, tag_cmd, rb_cmd, resign_cmd, info_cmd, lc_cmd, check_cmd}) {
    if (!*cmd) continue;
    if (cmd == ingest_cmd) given = ingest_fqrn;
    if (cmd == tag_cmd) given = tag_fqrn;
    if (cmd == rb_cmd) given = rb_fqrn;
    if (cmd == resign_cmd) given = resign_fqrn;
    if (cmd == info_cmd) given = info_fqrn;
    if (cmd == lc_cmd) given = lc_fqrn;
    if (cmd == check_cmd) given = check_fqrn;
  }
  auto fqrn = ResolveFqrn(paths, given);
  if (!fqrn.ok()) return Fail(fqrn.status());
  if (*info_cmd && replication::IsReplica(paths, *fqrn)) {
    auto replica = replication::LoadReplicaStatus(paths, *fqrn);
    if (!replica.ok()) return Fail(replica.status());
    std::printf("%s", replication::ReplicaInfoText(*replica).c_str());
    return 0;
  }
  auto repo_or = Repository::Open(paths, *fqrn);
  if (!repo_or.ok()) return Fail(repo_or.status());
  Repository& repo = **repo_or;

  if (*ingest_cmd) {
    ingest.include_xattrs = repo.config().include_xattrs;
    ingest.ignore_special_files = repo.config().ignore_special_files;
    ingest.hash_algorithm = repo.config().hash_algorithm;
    ingest.compression = repo.config().compression;
    auto start = std::chrono::steady_clock::now();
    auto stats = repo.Publish(
        [&](publisher::CatalogTree* tree,
            publisher::IngestPipeline* pipeline) -> Status {
          CVMFS_RETURN_IF_ERROR(publisher::IngestTar(ingest, tree, pipeline));
          if (ingest_catalog) {
            auto base = publisher::NormalizeRepoPath(ingest.base_dir);
            if (!base.ok()) return base.status();
            return tree->CreateNestedCatalog(*base);
          }
          return Status::Ok();
        },
        publisher::PublishOptions{});
    if (!stats.ok()) return FailPublish(repo, stats.status());
    double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count();
    PrintPublishStats(*stats, secs);
    publisher::FollowCurrentRevision(paths, &repo);
    return 0;
  }

  if (*tag_cmd) {
    if (!tag_add.empty()) {
      auto manifest = repo.CurrentManifest();
      if (!manifest.ok()) return Fail(manifest.status());
      auto history = repo.OpenHistory(true);
      if (!history.ok()) return Fail(history.status());
      cvmfs::Tag tag;
      auto trunk = (*history)->Get("trunk");
      if (!trunk.ok()) return Fail(trunk.status());
      if (tag_hash.empty()) {
        if (!*trunk) return Fail(Status::NotFound("no trunk tag"));
        tag = **trunk;
      } else {
        auto d = cvmfs::Digest::Parse(tag_hash);
        if (!d.ok()) return Fail(d.status());
        bool found = false;
        auto all = (*history)->List();
        if (!all.ok()) return Fail(all.status());
        for (auto& t : *all)
          if (t.root_hash == *d) {
            tag = t;
            found = true;
            break;
          }
        if (!found)
          return Fail(Status::NotFound("no tagged revision with root hash " +
                                       tag_hash));
      }
      tag.name = tag_add;
      tag.description = tag_msg;
      tag.timestamp = ::time(nullptr);
      Status st = (*history)->Insert(tag);
      if (st.ok()) st = repo.CommitHistory(std::move(*history));
      if (!st.ok()) return Fail(st);
      return 0;
    }
    if (!tag_rm.empty()) {
      if (tag_rm == "trunk" || tag_rm == "trunk-previous")
        return Fail(Status::InvalidArgument("tag " + tag_rm +
                                            " is maintained by publish"));
      auto history = repo.OpenHistory(true);
      if (!history.ok()) return Fail(history.status());
      auto existing = (*history)->Get(tag_rm);
      if (!existing.ok()) return Fail(existing.status());
      if (!*existing)
        return Fail(Status::NotFound("tag " + tag_rm + " does not exist"));
      Status st = (*history)->Remove(tag_rm);
      if (st.ok()) st = repo.CommitHistory(std::move(*history));
      if (!st.ok()) return Fail(st);
      return 0;
    }
    auto history = repo.OpenHistory(false);
    if (!history.ok()) return Fail(history.status());
    auto tags = (*history)->List();
    if (!tags.ok()) return Fail(tags.status());
    if (!tag_info.empty()) {
      for (auto& t : *tags) {
        if (t.name != tag_info) continue;
        std::printf(
            "Name:         %s\nRevision:     %llu\nChannel:      "
            "trunk\nTimestamp:    %s\n"
            "Root Hash:    %s\nCatalog Size: %llu\nDescription:  %s\n",
            t.name.c_str(), static_cast<unsigned long long>(t.revision),
            FormatTime(t.timestamp).c_str(), t.root_hash.ToString().c_str(),
            static_cast<unsigned long long>(t.size), t.description.c_str());
        return 0;
      }
      return Fail(Status::NotFound("tag " + tag_info + " does not exist"));
    }
    std::printf("%-36s %-42s %6s %-26s %s\n", "Name", "Revision hash", "Rev",
                "Timestamp", "Description");
    for (auto& t : *tags)
      std::printf("%-36s %-42s %6llu %-26s %s\n", t.name.c_str(),
                  t.root_hash.ToString().c_str(),
                  static_cast<unsigned long long>(t.revision),
                  FormatTime(t.timestamp).c_str(), t.description.c_str());
    return 0;
  }

  if (*rb_cmd) {
    std::string target = rb_tag.empty() ? "trunk-previous" : rb_tag;
    auto history = repo.OpenHistory(false);
    if (!history.ok()) return Fail(history.status());
    auto tag = (*history)->Get(target);
    if (!tag.ok()) return Fail(tag.status());
    if (!*tag)
      return Fail(Status::NotFound("tag " + target + " does not exist"));
    history->reset();
    auto stats =
        repo.PublishOldRoot((*tag)->root_hash, publisher::PublishOptions{});
    if (!stats.ok()) return FailPublish(repo, stats.status());
    std::printf("rolled back to %s (revision %llu) as revision %llu\n",
                target.c_str(),
                static_cast<unsigned long long>((*tag)->revision),
                static_cast<unsigned long long>(stats->revision));
    publisher::FollowCurrentRevision(paths, &repo);
    return 0;
  }

  if (*resign_cmd) {
    Status st = repo.Resign(resign_days);
    if (!st.ok()) return Fail(st);
    std::printf("whitelist of %s re-signed for %d days\n", fqrn->c_str(),
                resign_days);
    return 0;
  }

  auto manifest = repo.CurrentManifest();
  if (!manifest.ok()) return Fail(manifest.status());
  const cvmfs::Manifest& m = manifest->manifest;

  if (*info_cmd) {
    auto wl = repo.CurrentWhitelist();
    std::printf("Repository name: %s\n", m.fqrn.c_str());
    std::printf("Created by our cvmfs_server (CernVM-FS 2.12 compatible)\n");
    std::printf("Stratum1 Replication Allowed: %s\n",
                repo.store()->Exists(".cvmfs_master_replica") ? "yes" : "no");
    std::printf("Whitelist expires: %s\n",
                wl.ok() ? FormatTime(wl->whitelist.expires).c_str()
                        : wl.status().ToString().c_str());
    std::printf("Revision: %llu\n",
                static_cast<unsigned long long>(m.revision));
    std::printf(
        "Published: %s\n",
        m.publish_timestamp
            ? FormatTime(static_cast<int64_t>(*m.publish_timestamp)).c_str()
            : "-");
    std::printf("Root catalog: %s (%llu bytes)\n",
                m.root_catalog.ToString().c_str(),
                static_cast<unsigned long long>(m.catalog_size));
    std::printf(
        "Hash algorithm: %s\nCompression: %s\n",
        std::string(cvmfs::AlgorithmName(repo.config().hash_algorithm)).c_str(),
        std::string(cvmfs::CompressionName(repo.config().compression)).c_str());
    std::printf("Garbage collectable: %s\nCatalog TTL: %llu s\n",
                m.garbage_collectable ? "yes" : "no",
                static_cast<unsigned long long>(m.ttl));
    std::printf("Storage: %s\nStratum0 URL: %s\n",
                repo.config().storage_dir.c_str(),
                repo.config().stratum0_url.c_str());
    return 0;
  }

  auto tmp = repo.MakeTempDir();
  if (!tmp.ok()) return Fail(tmp.status());
  struct Cleanup {
    std::string dir;
    ~Cleanup() { (void)cvmfs::RemoveTree(dir); }
  } cleanup{*tmp};

  if (*lc_cmd) {
    cvmfs::CatalogWalker walker(repo.store(), *tmp);
    Status st = walker.Walk(
        m.root_catalog, [&](const cvmfs::CatalogVisit& v) -> Status {
          std::string line = std::string(v.depth * 2, ' ') +
                             (v.mountpoint.empty() ? "/" : v.mountpoint);
          if (lc_hash) line += "  " + v.hash.ToString();
          if (lc_size) {
            uint64_t size = v.size ? v.size : m.catalog_size;
            line += "  " + std::to_string(size) + " B";
          }
          if (lc_entries) {
            auto c = v.catalog->ReadCounters();
            if (c.ok()) {
              const auto& s = c->self;
              line +=
                  "  " +
                  std::to_string(s.regular + s.symlink + s.special + s.dir) +
                  " entries";
            }
          }
          std::printf("%s\n", line.c_str());
          return Status::Ok();
        });
    if (!st.ok()) return Fail(st);
    return 0;
  }

  if (*check_cmd) {
    cvmfs::Digest root = m.root_catalog;
    if (!check_tag.empty()) {
      auto history = repo.OpenHistory(false);
      if (!history.ok()) return Fail(history.status());
      auto tag = (*history)->Get(check_tag);
      if (!tag.ok()) return Fail(tag.status());
      if (!*tag)
        return Fail(Status::NotFound("tag " + check_tag + " does not exist"));
      root = (*tag)->root_hash;
    }
    std::printf("Verifying revision with root catalog %s%s\n",
                root.ToString().c_str(),
                check_content ? " (with content hashes)" : "");
    auto report =
        publisher::CheckRevision(repo.store(), root, check_content, *tmp);
    if (!report.ok()) return Fail(report.status());
    for (auto& p : report->problems)
      std::fprintf(stderr, "ERROR: %s\n", p.c_str());
    std::printf(
        "%llu catalogs, %llu entries, %llu objects checked, %zu problems\n",
        static_cast<unsigned long long>(report->catalogs),
        static_cast<unsigned long long>(report->entries),
        static_cast<unsigned long long>(report->objects_checked),
        report->problems.size());
    return report->problems.empty() ? 0 : 1;
  }
  return 0;
}
