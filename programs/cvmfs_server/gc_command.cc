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
#include <CLI/CLI.hpp>
#include <cstdio>
#include <ctime>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/time_format.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/gc.h"
#include "publisher/repository.h"
#include "publisher/server_config.h"

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
  std::printf("Kept %zu revisions:\n", r.kept.size());
  for (const KeptRevision& k : r.kept)
    std::printf("  revision %llu  %s  published %s  (%s)\n",
                static_cast<unsigned long long>(k.revision),
                k.root.ToString().c_str(), LocalTime(k.published).c_str(),
                k.reason.c_str());
  std::printf("Marked %llu catalogs, %llu referenced objects\n",
              static_cast<unsigned long long>(r.catalogs_marked),
              static_cast<unsigned long long>(r.objects_marked));
  std::printf(
      "%s %llu of %llu objects (%.1f MB, %llu bytes); %s %llu reflog entries\n",
      dry_run ? "Would delete" : "Deleted",
      static_cast<unsigned long long>(r.objects_deleted),
      static_cast<unsigned long long>(r.objects_scanned), r.bytes_deleted / 1e6,
      static_cast<unsigned long long>(r.bytes_deleted),
      dry_run ? "would remove" : "removed",
      static_cast<unsigned long long>(r.reflog_entries_removed));
  for (const std::string& w : r.warnings)
    std::fprintf(stderr, "warning: %s\n", w.c_str());
}

Status RunGc(const cvmfs::SystemPaths& paths, const GcArgs& args) {
  CVMFS_ASSIGN_OR_RETURN(std::string fqrn, ResolveFqrn(paths, args.fqrn));
  CVMFS_ASSIGN_OR_RETURN(auto repo, publisher::Repository::Open(paths, fqrn));
  CVMFS_ASSIGN_OR_RETURN(KeyValueFile conf,
                         KeyValueFile::Load(repo->config().ConfigFile(paths)));
  GcOptions options;
  CVMFS_ASSIGN_OR_RETURN(options.policy, PolicyFor(args, conf));
  options.dry_run = args.dry_run;
  if (!args.force && !args.dry_run && !Confirm(fqrn, options.policy))
    return Status::InvalidArgument("not confirmed; nothing was deleted");

  std::string log_path = args.deletion_log.empty()
                             ? conf.Get("CVMFS_GC_DELETION_LOG")
                             : args.deletion_log;
  std::unique_ptr<FILE, int (*)(FILE*)> log(nullptr, &std::fclose);
  if (!log_path.empty() && !args.dry_run) {
    log.reset(std::fopen(log_path.c_str(), "a"));
    if (!log)
      return Status::FromErrno(errno, "opening the deletion log " + log_path);
  }
  options.on_sweep = [&](const std::string& name, uint64_t) {
    if (args.list) std::printf("%s\n", name.c_str());
    if (log) std::fprintf(log.get(), "%s\n", name.c_str());
  };
  CVMFS_ASSIGN_OR_RETURN(GcReport report, CollectGarbage(repo.get(), options));
  PrintReport(report, args.dry_run);
  return Status::Ok();
}

}  // namespace

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
  cmd->add_option("fqrn", args->fqrn, "repository name");
  return {MakeCommand(cmd, paths, args, RunGc)};
}

}  // namespace cvmfs_server
