// `cvmfs_server gc [-r N | -t TIME] [-l] [-L FILE] [-d] [-f] [FQRN]`: the
// command line of the garbage collector (gc.h), with CVMFS's options:
//   -r N     keep the current revision and the N before it
//   -t TIME  keep the revisions that were current at or after TIME
//            (default: CVMFS_AUTO_GC_TIMESPAN from server.conf, else
//            "3 days ago")
//   -l       print the name of every deleted object
//   -L FILE  append the names of deleted objects to FILE (default:
//            CVMFS_GC_DELETION_LOG from server.conf)
//   -d, --dry-run  delete nothing, report what would be deleted
//   -f       do not ask for confirmation
//   -a       every garbage-collectable repository and replica here, with
//            one policy (-r/-t, else 3 days); failures are reported and the
//            others still run; exit 0 (as CVMFS, which runs it from cron)
// A Stratum 1 replica (CVMFS_GARBAGE_COLLECTION=true, add-replica -z) is
// collected under its snapshot lock: what the revisions it replicated and
// its tags do not reference. A collection that deletes records last_gc in
// .cvmfs_status.json.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "cvmfs/time_format.h"
#include "programs/cvmfs_server/auto_gc.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/command_progress.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/gc.h"
#include "publisher/repository.h"
#include "publisher/server_config.h"
#include "publisher/status_json.h"
#include "server/replication/replica.h"
#include "server/replication/replica_config.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;
using publisher::CollectGarbage;
using publisher::GcOptions;
using publisher::GcPolicy;
using publisher::GcReport;
using publisher::KeptRevision;
using publisher::KeyValueFile;
using publisher::ParseGcTime;

struct GcArgs {
  int64_t revisions = -1;
  std::string timestamp;
  bool list = false;
  std::string deletion_log;
  bool dry_run = false;
  bool force = false;
  bool all = false;
  std::string fqrn;
};

std::string LocalTime(int64_t t) {
  return cvmfs::FormatTime(t, cvmfs::kDateTimeFormat, cvmfs::TimeZone::kLocal);
}

// The policy from -r/-t, else from the repository's CVMFS_AUTO_GC_TIMESPAN.
cvmfs::Result<GcPolicy> PolicyFor(const GcArgs& args,
                                  const KeyValueFile& conf) {
  GcPolicy policy;
  const int64_t now = static_cast<int64_t>(::time(nullptr));
  if (args.revisions >= 0 && !args.timestamp.empty())
    return Status::InvalidArgument("give either -r or -t, not both");
  if (args.revisions >= 0) {
    policy.keep_revisions = static_cast<uint64_t>(args.revisions);
  } else if (!args.timestamp.empty()) {
    CVMFS_ASSIGN_OR_RETURN(int64_t t, ParseGcTime(args.timestamp, now));
    policy.keep_since = t;
  } else if (conf.Has("CVMFS_AUTO_GC_TIMESPAN")) {
    auto t = ParseGcTime(conf.Get("CVMFS_AUTO_GC_TIMESPAN"), now);
    if (!t.ok())
      return t.status().Annotate("CVMFS_AUTO_GC_TIMESPAN in server.conf");
    policy.keep_since = *t;
  } else {
    policy.keep_since = now - publisher::kDefaultGcTimespan;
  }
  return policy;
}

// CVMFS asks before deleting; -f (or a dry run) skips the question.
bool Confirm(const std::string& fqrn, const GcPolicy& policy) {
  std::printf(
      "YOU ARE ABOUT TO DELETE DATA! Are you sure you want to do the "
      "following:\n");
  std::printf("Affected Repositories:         %s\n", fqrn.c_str());
  if (policy.keep_revisions)
    std::printf("Preserved Legacy Revisions:    %llu\n",
                static_cast<unsigned long long>(*policy.keep_revisions));
  if (policy.keep_since)
    std::printf("Preserve Revisions newer than: %s\n",
                LocalTime(*policy.keep_since).c_str());
  std::printf("\nPlease confirm this action (y/N)? ");
  std::fflush(stdout);
  std::string reply;
  if (!std::getline(std::cin, reply)) return false;
  return reply == "y" || reply == "Y";
}

void PrintReport(const GcReport& r, bool dry_run) {
  std::fputs(publisher::GcReportText(r, dry_run).c_str(), stdout);
  for (const std::string& w : r.warnings)
    std::fprintf(stderr, "warning: %s\n", w.c_str());
}

// Where deleted objects go besides stdout: -L, else CVMFS_GC_DELETION_LOG.
using LogFile = std::unique_ptr<FILE, int (*)(FILE*)>;
cvmfs::Result<LogFile> OpenDeletionLog(const GcArgs& args,
                                       const std::string& configured) {
  std::string path = args.deletion_log.empty() ? configured : args.deletion_log;
  LogFile log(nullptr, &std::fclose);
  if (!path.empty() && !args.dry_run) {
    log.reset(std::fopen(path.c_str(), "a"));
    if (!log)
      return Status::FromErrno(errno, "opening the deletion log " + path);
  }
  return log;
}

void OnSweep(const GcArgs& args, FILE* log, GcOptions* options) {
  options->on_sweep = [&args, log](const std::string& name, uint64_t) {
    if (args.list) std::printf("%s\n", name.c_str());
    if (log) std::fprintf(log, "%s\n", name.c_str());
  };
}

// gc of a Stratum 1 replica (CVMFS: the replica must have
// CVMFS_GARBAGE_COLLECTION=true, from add-replica -z): what the revisions it
// replicated and the tags of its history do not reference. Holds the
// replica's snapshot lock (waiting for a running snapshot, as CVMFS).
Status GcReplica(const cvmfs::SystemPaths& paths, const std::string& name,
                 const GcArgs& args, const GcPolicy& policy) {
  CVMFS_ASSIGN_OR_RETURN(auto config,
                         replication::ReplicaConfig::Load(paths, name));
  if (!config.garbage_collection)
    return Status::InvalidArgument(
        "Garbage Collection is not enabled for " + name +
        " (CVMFS_GARBAGE_COLLECTION is not true in its server.conf; "
        "add-replica -z enables it)");
  KeyValueFile conf;
  auto loaded =
      KeyValueFile::Load(replication::ReplicaConfig::ConfigFile(paths, name));
  if (loaded.ok()) conf = std::move(*loaded);
  CVMFS_ASSIGN_OR_RETURN(
      LogFile log, OpenDeletionLog(args, conf.Get("CVMFS_GC_DELETION_LOG")));
  replication::LockPolicy lock_policy;
  lock_policy.on_wait = [] {
    std::printf("waiting for another update to finish...\n");
    std::fflush(stdout);
  };
  std::optional<replication::SnapshotLock> lock;
  if (!args.dry_run) {
    CVMFS_ASSIGN_OR_RETURN(auto l, replication::SnapshotLock::AcquireForReplica(
                                       config, lock_policy));
    lock.emplace(std::move(l));
  }
  CVMFS_ASSIGN_OR_RETURN(auto replica_store,
                         replication::OpenReplicaStore(config));
  cvmfs::ObjectStore& store = *replica_store;
  auto text = store.Get(std::string(cvmfs::kManifestName));
  if (!text.ok() && text.status().IsNotFound()) {
    std::printf("Repository %s is empty, nothing to do\n", name.c_str());
    return Status::Ok();
  }
  if (!text.ok()) return text.status();
  CVMFS_ASSIGN_OR_RETURN(cvmfs::SignedManifest manifest,
                         cvmfs::Manifest::Parse(*text));
  const std::string tmp_base = config.spool_dir + "/tmp";
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(tmp_base, 0700));
  std::string tmp = tmp_base + "/gc.XXXXXX";
  if (!::mkdtemp(tmp.data())) return Status::FromErrno(errno, "mkdtemp " + tmp);
  cvmfs::ScopedRemoveTree remove_tmp(tmp);
  GcOptions options;
  options.policy = policy;
  options.dry_run = args.dry_run;
  OnSweep(args, log.get(), &options);
  CVMFS_ASSIGN_OR_RETURN(auto progress,
                         CommandProgress::Start("gc", "objects"));
  options.progress = progress->counters();
  auto report = publisher::CollectStorageGarbage(
      {&store, manifest.manifest, tmp}, options);
  progress->Finish();
  if (!report.ok()) return report.status();
  PrintReport(*report, args.dry_run);
  if (args.dry_run || config.on_s3()) return Status::Ok();
  return publisher::UpdateStatusField(config.storage_dir, "last_gc",
                                      publisher::StatusTime(::time(nullptr)));
}

Status GcOne(const cvmfs::SystemPaths& paths, const std::string& fqrn,
             const GcArgs& args, const GcPolicy* given) {
  if (replication::IsReplica(paths, fqrn)) {
    GcPolicy policy;
    if (given) {
      policy = *given;
    } else {
      auto kv = KeyValueFile::Load(
          replication::ReplicaConfig::ConfigFile(paths, fqrn));
      CVMFS_ASSIGN_OR_RETURN(policy,
                             PolicyFor(args, kv.ok() ? *kv : KeyValueFile()));
    }
    return GcReplica(paths, fqrn, args, policy);
  }
  CVMFS_ASSIGN_OR_RETURN(auto repo, publisher::Repository::Open(paths, fqrn));
  CVMFS_ASSIGN_OR_RETURN(KeyValueFile conf,
                         KeyValueFile::Load(repo->config().ConfigFile(paths)));
  GcOptions options;
  if (given) {
    options.policy = *given;
  } else {
    CVMFS_ASSIGN_OR_RETURN(options.policy, PolicyFor(args, conf));
  }
  options.dry_run = args.dry_run;
  CVMFS_ASSIGN_OR_RETURN(
      LogFile log, OpenDeletionLog(args, conf.Get("CVMFS_GC_DELETION_LOG")));
  OnSweep(args, log.get(), &options);
  CVMFS_ASSIGN_OR_RETURN(auto progress,
                         CommandProgress::Start("gc", "objects"));
  options.progress = progress->counters();
  auto report = CollectGarbage(repo.get(), options);
  progress->Finish();
  if (!report.ok()) return report.status();
  PrintReport(*report, args.dry_run);
  // On S3 there is no storage directory to keep .cvmfs_status.json in.
  if (args.dry_run || repo->config().on_s3()) return Status::Ok();
  return publisher::UpdateStatusField(repo->config().storage_dir, "last_gc",
                                      publisher::StatusTime(::time(nullptr)));
}

// Whether `name` may be collected: garbage-collectable Stratum 0s and
// replicas with CVMFS_GARBAGE_COLLECTION=true (gc -a takes only those).
bool Collectable(const cvmfs::SystemPaths& paths, const std::string& name) {
  if (replication::IsReplica(paths, name)) {
    auto c = replication::ReplicaConfig::Load(paths, name);
    return c.ok() && c->garbage_collection;
  }
  auto c = publisher::ServerConfig::Load(paths, name);
  return c.ok() && c->garbage_collection;
}

std::vector<std::string> CollectableRepositories(
    const cvmfs::SystemPaths& paths) {
  std::vector<std::string> out;
  auto names = cvmfs::ListDirectory(paths.RepositoriesD());
  if (!names.ok()) return out;
  for (const std::string& n : *names)
    if (cvmfs::PathExists(paths.RepositoriesD() + "/" + n + "/server.conf") &&
        Collectable(paths, n))
      out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

int RunGc(const cvmfs::SystemPaths& paths, const GcArgs& args) {
  if (!args.all) {
    auto fqrn = ResolveFqrn(paths, args.fqrn);
    if (!fqrn.ok()) return FailMessage(fqrn.status());
    if (!args.force && !args.dry_run) {
      // The policy shown is the one that will be applied.
      KeyValueFile conf;
      if (!replication::IsReplica(paths, *fqrn)) {
        auto repo = publisher::ServerConfig::Load(paths, *fqrn);
        if (!repo.ok()) return FailMessage(repo.status());
        auto kv = KeyValueFile::Load(repo->ConfigFile(paths));
        if (kv.ok()) conf = std::move(*kv);
      }
      auto policy = PolicyFor(args, conf);
      if (!policy.ok()) return FailMessage(policy.status());
      if (!Confirm(*fqrn, *policy))
        return FailMessage(
            Status::InvalidArgument("not confirmed; nothing was deleted"));
    }
    return ExitCode(GcOne(paths, *fqrn, args, nullptr));
  }
  // gc -a: every garbage-collectable repository, one policy for all.
  if (!args.fqrn.empty())
    return FailMessage(
        Status::InvalidArgument("no repository name expected with gc -a"));
  const std::vector<std::string> names = CollectableRepositories(paths);
  if (names.empty())
    return FailMessage(Status::InvalidArgument(
        "There are no active garbage-collectable repositories"));
  auto policy = PolicyFor(args, KeyValueFile());
  if (!policy.ok()) return FailMessage(policy.status());
  std::string joined;
  for (const std::string& n : names) joined += (joined.empty() ? "" : " ") + n;
  if (!args.force && !args.dry_run && !Confirm(joined, *policy))
    return FailMessage(
        Status::InvalidArgument("not confirmed; nothing was deleted"));
  for (const std::string& name : names) {
    std::printf("\nStarting %s at %s\n", name.c_str(),
                publisher::StatusTime(::time(nullptr)).c_str());
    std::fflush(stdout);
    Status st = GcOne(paths, name, args, &*policy);
    if (!st.ok()) {
      FailMessage(st.Annotate(name));
      std::fprintf(stderr, "ERROR from cvmfs_server gc!\n");
    }
    std::printf("Finished %s at %s\n", name.c_str(),
                publisher::StatusTime(::time(nullptr)).c_str());
  }
  return 0;  // as CVMFS: -a runs from cron; failures are in the output
}

// Whether CVMFS_AUTO_GC asks for a collection of `name` now.
cvmfs::Result<bool> AutoGcDue(const cvmfs::SystemPaths& paths,
                              const std::string& name) {
  std::string config_file, storage_dir;
  if (replication::IsReplica(paths, name)) {
    CVMFS_ASSIGN_OR_RETURN(auto c,
                           replication::ReplicaConfig::Load(paths, name));
    if (!c.garbage_collection) return false;
    config_file = replication::ReplicaConfig::ConfigFile(paths, name);
    storage_dir = c.storage_dir;
  } else {
    CVMFS_ASSIGN_OR_RETURN(auto c, publisher::ServerConfig::Load(paths, name));
    if (!c.garbage_collection) return false;
    config_file = c.ConfigFile(paths);
    storage_dir = c.storage_dir;
  }
  CVMFS_ASSIGN_OR_RETURN(KeyValueFile conf, KeyValueFile::Load(config_file));
  if (conf.Get("CVMFS_AUTO_GC") != "true") return false;
  const int64_t now = static_cast<int64_t>(::time(nullptr));
  int64_t lapse = now - 24 * 3600;
  if (conf.Has("CVMFS_AUTO_GC_LAPSE")) {
    auto t = ParseGcTime(conf.Get("CVMFS_AUTO_GC_LAPSE"), now);
    if (!t.ok()) return t.status().Annotate("CVMFS_AUTO_GC_LAPSE");
    lapse = *t;
  }
  CVMFS_ASSIGN_OR_RETURN(auto last,
                         publisher::ReadStatusField(storage_dir, "last_gc"));
  if (!last) return true;
  auto last_time = publisher::ParseStatusTime(*last);
  // An unreadable time is treated as never: collect (and rewrite it).
  return !last_time.ok() || static_cast<int64_t>(*last_time) < lapse;
}

}  // namespace

void RunAutoGc(const cvmfs::SystemPaths& paths, const std::string& fqrn) {
  auto due = AutoGcDue(paths, fqrn);
  if (due.ok() && !*due) return;
  Status st = due.status();
  if (st.ok()) {
    std::printf("Running automatic garbage collection on %s\n", fqrn.c_str());
    std::fflush(stdout);
    GcArgs args;
    args.force = true;
    st = GcOne(paths, fqrn, args, nullptr);
  }
  if (!st.ok())
    std::fprintf(stderr,
                 "warning: automatic garbage collection of %s failed: %s\n",
                 fqrn.c_str(), st.ToString().c_str());
}

std::vector<Command> AddGcCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<GcArgs>();
  auto* cmd = app.add_subcommand(
      "gc", "delete objects no kept revision or tag references");
  cmd->add_option("-r", args->revisions,
                  "keep the current and this many earlier revisions");
  cmd->add_option("-t", args->timestamp,
                  "keep revisions current at or after this time "
                  "(Unix seconds, 'YYYY-MM-DD [HH:MM]', 'N days ago')");
  cmd->add_flag("-l", args->list, "print every deleted object");
  cmd->add_option("-L", args->deletion_log,
                  "append deleted objects to this file");
  cmd->add_flag("-d,--dry-run", args->dry_run,
                "delete nothing, show what would be deleted");
  cmd->add_flag("-f", args->force, "do not ask for confirmation");
  cmd->add_flag("-a", args->all,
                "collect every garbage-collectable repository and replica");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunGc)};
}

}  // namespace cvmfs_server
