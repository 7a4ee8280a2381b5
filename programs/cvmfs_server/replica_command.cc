// cvmfs_server add-replica and snapshot (server/replication/replica.h does
// the work):
//
//   add-replica [-o owner] [-n alias] [-z] [-g group] [-s S3CONF -w URL]
//               STRATUM0_URL PUBKEY
//     -z  the replica may be garbage-collected (CVMFS_GARBAGE_COLLECTION)
//     -g  its snapshot group (CVMFS_SNAPSHOT_GROUP)
//     -s  the replica lives in the S3 bucket of S3CONF (doc/s3.md); -w is
//         the bucket's URL for clients, the replica's name is appended
//   snapshot [-t] [NAME]
//     -t  fail at once if another snapshot (or gc) holds the replica's
//         lock; without -t it waits, unless the holder is the initial
//         snapshot (CVMFS's acquire_update_lock)
//   snapshot -a [-n] [-i] [-g group]
//     every replica (of `group`, or those without a group), oldest snapshot
//     first; -i skips replicas without an initial snapshot; -n is accepted
//     (we never warn about logrotate); -s (separate logs in /var/log/cvmfs)
//     is refused: not implemented. -a implies -t. Exit 0 (cron), failures
//     are in the output.
// A snapshot records last_snapshot in .cvmfs_status.json (not on S3).
#include <algorithm>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/text.h"
#include "programs/cvmfs_server/auto_gc.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/command_progress.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/status_json.h"
#include "server/apache_config.h"
#include "server/replication/replica.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;
using replication::SnapshotStats;

struct SnapshotArgs {
  bool all = false;                   // -a
  bool abort_on_conflict = false;     // -t
  bool separate_logs = false;         // -s (with -a)
  bool no_logrotate_warning = false;  // -n (with -a)
  bool skip_noninitial = false;       // -i (with -a)
  std::string group;                  // -g (with -a)
  std::string name;
};

void PrintStats(const std::string& name, const SnapshotStats& s) {
  double mb = s.bytes_copied / 1e6;
  std::printf(
      "%s: revision %llu (root catalog %s)%s\n", name.c_str(),
      static_cast<unsigned long long>(s.revision),
      s.root_catalog.ToString().c_str(),
      s.previous_revision == s.revision ? ", replica was up to date" : "");
  std::printf(
      "copied %llu objects (%.1f MB) in %.2f s, %.1f MB/s, %.0f objects/s; "
      "%llu catalogs copied, "
      "%llu catalogs skipped (present), %llu objects present, %zu tagged "
      "revisions\n",
      static_cast<unsigned long long>(s.objects_copied), mb, s.seconds,
      s.seconds > 0 ? mb / s.seconds : 0.0,
      s.seconds > 0 ? static_cast<double>(s.objects_copied) / s.seconds : 0.0,
      static_cast<unsigned long long>(s.catalogs_copied),
      static_cast<unsigned long long>(s.catalogs_skipped),
      static_cast<unsigned long long>(s.objects_present), s.tagged_roots);
}

// One replica's snapshot; returns the exit status.
int SnapshotOne(const cvmfs::SystemPaths& paths, const std::string& name,
                bool abort_on_conflict) {
  auto config = replication::ReplicaConfig::Load(paths, name);
  if (!config.ok()) return FailMessage(config.status());
  auto fetcher = replication::MakeSourceFetcher(
      config->stratum0_url, config->http_timeout_s, config->http_retries,
      config->num_workers);
  if (!fetcher.ok()) return FailMessage(fetcher.status().Annotate(name));
  std::printf("%s: snapshot of %s from %s\n", name.c_str(),
              config->fqrn.c_str(), config->stratum0_url.c_str());
  std::fflush(stdout);
  replication::LockPolicy lock;
  lock.abort_on_conflict = abort_on_conflict;
  lock.on_wait = [] {
    std::printf("waiting for another update to finish...\n");
    std::fflush(stdout);
  };
  auto progress = CommandProgress::Start("snapshot", "objects");
  if (!progress.ok()) return FailMessage(progress.status());
  auto stats = replication::SnapshotReplica(*config, fetcher->get(), lock,
                                            (*progress)->counters());
  (*progress)->Finish();
  if (!stats.ok()) return FailMessage(stats.status());
  PrintStats(name, *stats);
  Status st = config->on_s3() ? Status::Ok()
                              : publisher::UpdateStatusField(
                                    config->storage_dir, "last_snapshot",
                                    publisher::StatusTime(::time(nullptr)));
  if (st.ok()) RunAutoGc(paths, name);  // the snapshot lock is released
  return ExitCode(st);
}

int AddReplica(const cvmfs::SystemPaths& paths,
               const replication::AddReplicaOptions& options) {
  auto fetcher = replication::MakeSourceFetcher(options.stratum0_url, 10, 3, 4);
  if (!fetcher.ok()) return FailMessage(fetcher.status());
  auto config = replication::AddReplica(paths, options, fetcher->get());
  if (!config.ok()) return FailMessage(config.status());
  const std::string storage = config->on_s3()
                                  ? "S3 " + config->s3_prefix + "@" +
                                        config->s3_config_file + ", read at " +
                                        config->stratum1_url
                                  : config->storage_dir;
  std::printf(
      "created replica %s of %s (storage %s); run cvmfs_server snapshot %s\n",
      config->name.c_str(), config->fqrn.c_str(), storage.c_str(),
      config->name.c_str());
  if (config->on_s3()) return 0;  // served by the bucket, not by Apache
  // The same Apache snippet a Stratum 0 gets, for /cvmfs/<name>.
  auto apache = server::WriteApacheConfig(paths, config->name);
  if (!apache.ok())
    return FailMessage(apache.status().Annotate(
        "replica " + config->name +
        " was created, but its Apache configuration was not"));
  std::printf("Apache configuration: %s\n%s", apache->c_str(),
              server::ApacheEnableInstructions(*apache, config->name).c_str());
  return 0;
}

// snapshot -a: the replicas of the group, oldest last snapshot first.
int SnapshotAll(const cvmfs::SystemPaths& paths, const SnapshotArgs& args) {
  if (args.separate_logs)
    return FailMessage(Status::NotSupported(
        "snapshot -a -s (separate logs in /var/log/cvmfs) is not implemented; "
        "the output goes to stdout"));
  std::vector<std::pair<std::string, std::string>> due;  // (last, name)
  for (const std::string& n : replication::ListReplicas(paths)) {
    auto config = replication::ReplicaConfig::Load(paths, n);
    if (!config.ok()) {
      FailMessage(config.status());
      continue;
    }
    if (config->snapshot_group != args.group) continue;
    auto store = replication::OpenReplicaStore(*config);
    if (!store.ok()) {
      FailMessage(store.status().Annotate(n));
      continue;
    }
    auto last = (*store)->Get(replication::kLastSnapshotName);
    if (!last.ok() && args.skip_noninitial) continue;
    std::string when = "0";
    if (last.ok()) {
      auto t = publisher::ParseStatusTime(cvmfs::Trim(*last));
      if (t.ok()) when = std::to_string(static_cast<int64_t>(*t));
    }
    due.emplace_back(
        std::string(20 - std::min<size_t>(20, when.size()), '0') + when, n);
  }
  std::sort(due.begin(), due.end());
  // One replica failing (or busy) does not stop the others.
  for (const auto& [when, name] : due) {
    if (SnapshotOne(paths, name, /*abort_on_conflict=*/true) != 0)
      std::fprintf(stderr, "ERROR from cvmfs_server snapshot of %s!\n",
                   name.c_str());
  }
  return 0;
}

int Snapshot(const cvmfs::SystemPaths& paths, const SnapshotArgs& args) {
  if (args.all) {
    if (!args.name.empty())
      return FailMessage(
          Status::InvalidArgument("no non-option parameters expected with -a"));
    return SnapshotAll(paths, args);
  }
  if (args.separate_logs || args.no_logrotate_warning || args.skip_noninitial ||
      !args.group.empty())
    return FailMessage(Status::InvalidArgument(
        "snapshot: -s, -n, -i and -g are options of snapshot -a"));
  std::string target = args.name;
  if (target.empty()) {
    auto replicas = replication::ListReplicas(paths);
    if (replicas.size() != 1)
      return FailMessage(
          Status::InvalidArgument("name the replica, or use -a (there is not "
                                  "exactly one replica here)"));
    target = replicas.front();
  }
  return SnapshotOne(paths, target, args.abort_on_conflict);
}

}  // namespace

std::vector<Command> AddReplicaCommands(CLI::App& app, const Paths& paths) {
  auto options = std::make_shared<replication::AddReplicaOptions>();
  auto* add = app.add_subcommand("add-replica",
                                 "create a Stratum 1 replica of a repository");
  add->add_option("-o", options->owner, "owner of the replica's storage");
  add->add_option("-n", options->alias,
                  "name of the replica (default: the repository name)");
  add->add_flag("-z", options->garbage_collection,
                "enable garbage collection of the replica");
  add->add_option("-g", options->snapshot_group,
                  "snapshot group (snapshot -a -g GROUP)");
  add->add_option("-s", options->s3_config_file,
                  "S3 configuration file: the replica is stored in S3 "
                  "(doc/s3.md)");
  add->add_option("-w", options->stratum1_url,
                  "with -s: the bucket's URL for clients (the replica's "
                  "name is appended)");
  add->add_option("stratum0_url", options->stratum0_url,
                  "URL of the source repository")
      ->required();
  add->add_option(
         "public_key", options->public_key,
         "master public key of the repository, or a directory of *.pub keys")
      ->required();

  auto args = std::make_shared<SnapshotArgs>();
  auto* snapshot = app.add_subcommand(
      "snapshot", "update a Stratum 1 replica from its source");
  snapshot->add_flag("-a", args->all, "update every replica on this machine");
  snapshot->add_flag("-t", args->abort_on_conflict,
                     "fail if another snapshot is in progress");
  snapshot->add_flag("-s", args->separate_logs,
                     "with -a: separate logs (not implemented: refused)");
  snapshot->add_flag("-n", args->no_logrotate_warning,
                     "with -a: do not warn about logrotate (we never do)");
  snapshot->add_flag("-i", args->skip_noninitial,
                     "with -a: skip replicas without an initial snapshot");
  snapshot->add_option("-g", args->group,
                       "with -a: only the replicas of this snapshot group");
  snapshot->add_option("name", args->name, "replica name");

  return {MakeCommand(add, paths, options, AddReplica),
          MakeCommand(snapshot, paths, args, Snapshot)};
}

}  // namespace cvmfs_server
