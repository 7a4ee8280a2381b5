// `cvmfs_server check [-c] [-i] [-t TAG] [-s PATH] [-a | FQRN]`, with CVMFS
// 2.12's options (publisher/check.h does the work):
//   -c       no data chunk check: catalogs and their statistics only
//   -i       integrity check: every object under data/ is re-hashed
//   -t TAG   check the revision of TAG instead of the current one
//   -s PATH  start at the nested catalog mounted at PATH
//   -a       every repository here (Stratum 0 and 1) not checked within
//            CVMFS_CHECK_ALL_MIN_DAYS (30) days, oldest check first; records
//            last_check and check_status in .cvmfs_status.json; exit 0
//   -r       (repair the reflog) is refused: not implemented
// A Stratum 1 replica is checked like a Stratum 0, with its master public
// key(s): whitelist, certificate and manifest are verified first. Problems
// go to stderr, one "ERROR:" line each; exit status 1 when there are any.
// A successful single check updates last_check only if it is recorded
// already (as CVMFS).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/file_util.h"
#include "cvmfs/text.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/command_progress.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/check.h"
#include "publisher/gc.h"
#include "publisher/object_store_factory.h"
#include "publisher/reflog_repair.h"
#include "publisher/repository.h"
#include "publisher/server_config.h"
#include "publisher/status_json.h"
#include "server/replication/replica.h"
#include "server/replication/replica_config.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;

struct CheckArgs {
  std::string fqrn, tag, subtree;
  bool no_chunks = false;  // -c
  bool integrity = false;  // -i
  bool repair_reflog = false;
  bool all = false;
};

// What a check needs of a repository, Stratum 0 or 1.
struct CheckTarget {
  // storage_dir: where .cvmfs_status.json lives; "" on S3 (not kept there).
  std::string name, fqrn, storage_dir, temp_base;
  std::vector<std::string> keys;
  std::unique_ptr<cvmfs::ObjectStore> store;  // local or S3
};

cvmfs::Result<CheckTarget> TargetOf(const cvmfs::SystemPaths& paths,
                                    const std::string& name) {
  if (replication::IsReplica(paths, name)) {
    CVMFS_ASSIGN_OR_RETURN(auto c,
                           replication::ReplicaConfig::Load(paths, name));
    CVMFS_ASSIGN_OR_RETURN(auto store, replication::OpenReplicaStore(c));
    return CheckTarget{name,          c.fqrn,
                       c.storage_dir, c.spool_dir + "/tmp",
                       c.public_keys, std::move(store)};
  }
  CVMFS_ASSIGN_OR_RETURN(auto c, publisher::ServerConfig::Load(paths, name));
  CVMFS_ASSIGN_OR_RETURN(auto store, publisher::OpenObjectStore(c));
  return CheckTarget{name,
                     c.fqrn,
                     c.storage_dir,
                     c.spool_dir + "/tmp",
                     {c.keys_dir + "/" + c.fqrn + ".pub"},
                     std::move(store)};
}

cvmfs::Result<cvmfs::Digest> TagRoot(cvmfs::ObjectStore* store,
                                     const cvmfs::Manifest& m,
                                     const std::string& tag,
                                     const std::string& temp_dir) {
  if (!m.history)
    return Status::NotFound("no tag " + tag +
                            " (the repository has no history)");
  CVMFS_ASSIGN_OR_RETURN(
      auto history, publisher::OpenStoredHistory(store, *m.history, temp_dir));
  CVMFS_ASSIGN_OR_RETURN(auto found, history->Get(tag));
  if (!found) return Status::NotFound("no tag " + tag);
  return found->root_hash;
}

void PrintReport(const publisher::CheckReport& report, const char* what) {
  for (const std::string& p : report.problems)
    std::fprintf(stderr, "ERROR: %s\n", p.c_str());
  std::printf(
      "%s: %llu catalogs, %llu entries, %llu objects checked, %zu "
      "problems\n",
      what, static_cast<unsigned long long>(report.catalogs),
      static_cast<unsigned long long>(report.entries),
      static_cast<unsigned long long>(report.objects_checked),
      report.problems.size());
}

// One repository; returns the exit status (0, 1 for problems found).
int CheckOne(const cvmfs::SystemPaths& paths, const std::string& name,
             const CheckArgs& args) {
  auto target = TargetOf(paths, name);
  if (!target.ok()) return FailMessage(target.status());
  cvmfs::ObjectStore& store = *target->store;
  auto manifest = publisher::VerifyStoredTrustChain(
      &store, target->keys, target->fqrn, ::time(nullptr));
  if (!manifest.ok())
    return FailMessage(manifest.status().Annotate(
        "verifying whitelist, certificate and manifest of " + name));
  if (cvmfs::Status st = cvmfs::MakeDirs(target->temp_base, 0700); !st.ok())
    return FailMessage(st);
  std::string tmp = target->temp_base + "/check.XXXXXX";
  if (!::mkdtemp(tmp.data()))
    return FailMessage(Status::FromErrno(errno, "mkdtemp " + tmp));
  cvmfs::ScopedRemoveTree remove_tmp(tmp);

  int rc = 0;
  if (args.integrity) {
    std::printf("Checking storage integrity of %s ... (may take a while)\n",
                name.c_str());
    auto progress = CommandProgress::Start("check -i", "objects");
    if (!progress.ok()) return FailMessage(progress.status());
    auto scrub = publisher::ScrubStorage(&store, (*progress)->counters());
    (*progress)->Finish();
    if (!scrub.ok()) return FailMessage(scrub.status());
    PrintReport(*scrub, "integrity");
    if (!scrub->problems.empty()) rc = 1;
  }
  cvmfs::Digest root = manifest->root_catalog;
  if (!args.tag.empty()) {
    auto tag = TagRoot(&store, *manifest, args.tag, tmp);
    if (!tag.ok()) return FailMessage(tag.status());
    root = *tag;
  }
  publisher::CheckOptions options;
  options.check_data = !args.no_chunks;
  options.subtree = args.subtree;
  std::printf(
      "Verifying integrity of %s%s (root catalog %s)...\n", name.c_str(),
      args.subtree.empty()
          ? ""
          : (" (starting at nested catalog '" + args.subtree + "')").c_str(),
      root.ToString().c_str());
  auto progress = CommandProgress::Start("check", "entries");
  if (!progress.ok()) return FailMessage(progress.status());
  options.progress = (*progress)->counters();
  auto report = publisher::CheckRevision(&store, root, options, tmp);
  (*progress)->Finish();
  if (!report.ok()) return FailMessage(report.status());
  PrintReport(*report, "catalogs");
  if (!report->problems.empty()) rc = 1;
  return rc;
}

std::vector<std::string> AllRepositories(const cvmfs::SystemPaths& paths) {
  auto names = cvmfs::ListDirectory(paths.RepositoriesD());
  std::vector<std::string> out;
  if (!names.ok()) return out;
  for (const std::string& n : *names)
    if (cvmfs::PathExists(paths.RepositoriesD() + "/" + n + "/server.conf"))
      out.push_back(n);
  std::sort(out.begin(), out.end());
  return out;
}

// check -a: the repositories whose last check is older than the minimum
// age, oldest (or never checked) first, as CVMFS's __get_checks_repo_times.
int CheckAll(const cvmfs::SystemPaths& paths, const CheckArgs& args) {
  const char* env = std::getenv("CVMFS_CHECK_ALL_MIN_DAYS");
  const int64_t min_days = env ? std::atoll(env) : 30;
  const int64_t now = static_cast<int64_t>(::time(nullptr));
  std::vector<std::pair<int64_t, std::string>> due;
  for (const std::string& name : AllRepositories(paths)) {
    auto target = TargetOf(paths, name);
    if (!target.ok()) continue;
    auto last = publisher::ReadStatusField(target->storage_dir, "last_check");
    int64_t when = 0;
    if (last.ok() && last->has_value()) {
      auto t = publisher::ParseStatusTime(cvmfs::Trim(**last));
      if (t.ok()) when = static_cast<int64_t>(*t);
      if (when > 0 && now - when < min_days * 86400) continue;
    }
    due.emplace_back(when, name);
  }
  std::sort(due.begin(), due.end());
  for (const auto& [when, name] : due) {
    std::printf("\nStarting %s at %s\n", name.c_str(),
                publisher::StatusTime(::time(nullptr)).c_str());
    std::fflush(stdout);
    int rc = CheckOne(paths, name, args);
    auto target = TargetOf(paths, name);
    if (target.ok() && !target->storage_dir.empty()) {
      const std::string dir = target->storage_dir;
      Status st = publisher::UpdateStatusField(
          dir, "last_check", publisher::StatusTime(::time(nullptr)));
      if (st.ok())
        st = publisher::UpdateStatusField(dir, "check_status",
                                          rc == 0 ? "succeeded" : "failed");
      if (!st.ok()) FailMessage(st);
    }
    if (rc != 0) std::fprintf(stderr, "ERROR from cvmfs_server check!\n");
    std::printf("Finished %s at %s\n", name.c_str(),
                publisher::StatusTime(::time(nullptr)).c_str());
  }
  return 0;  // as CVMFS: -a runs from cron; failures are in the output
}

// check -r on a Stratum 0: the reflog repaired before the check
// (publisher/reflog_repair.h).
Status RepairReflogOf(const cvmfs::SystemPaths& paths,
                      const std::string& name) {
  if (replication::IsReplica(paths, name))
    return Status::NotSupported(
        "check -r repairs a Stratum 0's reflog; a replica's reflog is "
        "replaced by its next snapshot");
  CVMFS_ASSIGN_OR_RETURN(auto repo, publisher::Repository::Open(paths, name));
  CVMFS_ASSIGN_OR_RETURN(publisher::ReflogRepair r,
                         publisher::RepairReflog(repo.get()));
  if (r.reason.empty()) {
    std::printf("The reflog of %s is intact\n", name.c_str());
  } else if (r.rebuilt) {
    std::printf(
        "Reconstructed the reflog of %s (%s): %zu entries; "
        "manifest re-signed\n",
        name.c_str(), r.reason.c_str(), r.entries);
  } else {
    std::printf("Re-signed the manifest of %s for its reflog (%s)\n",
                name.c_str(), r.reason.c_str());
  }
  return Status::Ok();
}

int RunCheck(const cvmfs::SystemPaths& paths, const CheckArgs& args) {
  if (args.repair_reflog && args.all)
    return FailMessage(
        Status::InvalidArgument("check -r takes one repository, not -a"));
  if (args.all) {
    if (!args.fqrn.empty())
      return FailMessage(
          Status::InvalidArgument("no repository name expected with check -a"));
    return CheckAll(paths, args);
  }
  auto name = ResolveFqrn(paths, args.fqrn);
  if (!name.ok()) return FailMessage(name.status());
  if (args.repair_reflog) {
    Status st = RepairReflogOf(paths, *name);
    if (!st.ok()) return FailMessage(st);
  }
  int rc = CheckOne(paths, *name, args);
  if (rc != 0) return rc;
  auto target = TargetOf(paths, *name);
  if (!target.ok() || target->storage_dir.empty()) return rc;
  auto last = publisher::ReadStatusField(target->storage_dir, "last_check");
  if (last.ok() && last->has_value()) {
    Status st =
        publisher::UpdateStatusField(target->storage_dir, "last_check",
                                     publisher::StatusTime(::time(nullptr)));
    if (st.ok())
      st = publisher::UpdateStatusField(target->storage_dir, "check_status",
                                        "succeeded");
    if (!st.ok()) return FailMessage(st);
  }
  return 0;
}

}  // namespace

std::vector<Command> AddCheckCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<CheckArgs>();
  auto* cmd = app.add_subcommand(
      "check", "verify a repository's signatures, catalogs and objects");
  cmd->add_flag("-c", args->no_chunks,
                "disable the data chunk existence check");
  cmd->add_flag("-i", args->integrity,
                "check data integrity: re-hash every stored object");
  cmd->add_option("-t", args->tag, "check the revision of this tag");
  cmd->add_option("-s", args->subtree,
                  "check only the nested catalog subtree mounted here");
  cmd->add_flag("-r", args->repair_reflog,
                "repair reflog problems (rebuild a missing or unreadable "
                "reflog, re-sign the manifest for it)");
  cmd->add_flag("-a", args->all,
                "check all repositories not checked recently, record the "
                "results in .cvmfs_status.json");
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunCheck)};
}

}  // namespace cvmfs_server
