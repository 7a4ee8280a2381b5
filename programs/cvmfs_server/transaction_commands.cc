#include "programs/cvmfs_server/transaction_commands.h"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "programs/cvmfs_server/auto_gc.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/command_progress.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/diff.h"
#include "publisher/lease_path.h"
#include "publisher/tags.h"
#include "publisher/transaction.h"

namespace cvmfs_server {

using cvmfs::Status;
using publisher::PublishOptions;
using publisher::PublishStats;
using publisher::Repository;
using publisher::RepositoryMounts;
using publisher::SpoolLayout;
using publisher::Transaction;
using publisher::TransactionPublishResult;
using publisher::UpperChanges;

namespace {

struct Args {
  std::string fqrn, tag, message;
  bool force = false, all = false;
  int retry_timeout = -1;  // transaction -t: seconds; 0 = forever; <0 = none
  bool verbose = false;    // publish -v
  bool force_external = false, force_native = false;  // publish -X, -N
};

// Runs `fn` on the named (or only) repository's Transaction.
template <typename Fn>
Status WithTransaction(const cvmfs::SystemPaths& paths,
                       const std::string& given, Fn fn) {
  CVMFS_ASSIGN_OR_RETURN(std::string fqrn, ResolveFqrn(paths, given));
  CVMFS_ASSIGN_OR_RETURN(auto repo, Repository::Open(paths, fqrn));
  Transaction txn(paths, repo.get());
  return fn(*repo, txn);
}

bool Confirm(const std::string& question) {
  std::printf("%s [y/N] ", question.c_str());
  std::fflush(stdout);
  std::string reply;
  if (!std::getline(std::cin, reply)) return false;
  return reply == "y" || reply == "Y" || reply == "yes";
}

void PrintPublished(const TransactionPublishResult& r, double seconds) {
  const PublishStats& s = r.stats;
  const UpperChanges& c = r.changes;
  std::printf(
      "published revision %llu (root catalog %s, %zu catalogs rewritten)\n",
      static_cast<unsigned long long>(s.revision),
      s.root_hash.ToString().c_str(), s.catalogs_written);
  std::printf(
      "changes: %llu files, %llu directories (%llu replaced), %llu symlinks, "
      "%llu special files, %llu removals, %llu catalogs created, %llu merged\n",
      static_cast<unsigned long long>(c.files),
      static_cast<unsigned long long>(c.directories),
      static_cast<unsigned long long>(c.opaque_directories),
      static_cast<unsigned long long>(c.symlinks),
      static_cast<unsigned long long>(c.special),
      static_cast<unsigned long long>(c.removed),
      static_cast<unsigned long long>(c.catalogs_created),
      static_cast<unsigned long long>(c.catalogs_removed));
  std::printf(
      "input: %.1f MB, new objects: %llu (%.1f MB), existing objects: %llu "
      "(%llu recognized without compressing)\n",
      s.bytes_in / 1e6, static_cast<unsigned long long>(s.objects_stored),
      s.bytes_stored / 1e6, static_cast<unsigned long long>(s.objects_existing),
      static_cast<unsigned long long>(s.objects_recognized));
  if (s.bundle_directories > 0)
    std::printf(
        "bundles: %llu directories, %llu new bundles (%.1f MB), %.2f s\n",
        static_cast<unsigned long long>(s.bundle_directories),
        static_cast<unsigned long long>(s.bundles_written),
        s.bundle_bytes / 1e6, s.bundle_seconds);
  std::printf(
      "time: %.2f s (upper layer and contents %.2f s, catalogs and commit %.2f "
      "s, "
      "remount and cleanup %.2f s)\n",
      seconds, r.scan_seconds, r.commit_seconds, r.cleanup_seconds);
  for (const std::string& w : s.warnings)
    std::fprintf(stderr, "warning: %s\n", w.c_str());
}

// publish -v: the change set of the new revision, trunk-previous -> trunk,
// one line per changed path (diff.h, FormatChange).
Status PrintChangeSet(Repository& repo) {
  CVMFS_ASSIGN_OR_RETURN(cvmfs::Tag from,
                         publisher::FindTag(&repo, "trunk-previous"));
  CVMFS_ASSIGN_OR_RETURN(cvmfs::Tag to, publisher::FindTag(&repo, "trunk"));
  CVMFS_ASSIGN_OR_RETURN(std::string temp_dir, repo.MakeTempDir());
  cvmfs::ScopedRemoveTree remove_temp_dir(temp_dir);
  std::printf("changes:\n");
  return publisher::DiffRevisions(
             repo.store(), from.root_hash, to.root_hash, temp_dir,
             publisher::DiffOptions{},
             [](const publisher::PathChange& c) {
               std::printf("  %s\n", publisher::FormatChange(c, false).c_str());
             })
      .status();
}

Status PublishInTransaction(const cvmfs::SystemPaths& paths, const Args& args) {
  return WithTransaction(
      paths, args.fqrn, [&](Repository& repo, Transaction& txn) -> Status {
        if (!args.tag.empty()) {
          // CVMFS: refused before anything is published.
          if (args.tag.find(' ') != std::string::npos)
            return Status::InvalidArgument(
                "spaces are not allowed in tag names");
          if (publisher::FindTag(&repo, args.tag).ok())
            return Status::AlreadyExists("tag name '" + args.tag +
                                         "' is already in use");
        }
        CVMFS_ASSIGN_OR_RETURN(auto progress,
                               CommandProgress::Start("publish", "files"));
        auto start = std::chrono::steady_clock::now();
        PublishOptions options;
        options.tag_name = args.tag;
        options.tag_description = args.message;
        options.progress = progress->counters();
        // As CVMFS: -N wins over -X and over CVMFS_EXTERNAL_DATA.
        if (args.force_external) options.external_data = true;
        if (args.force_native) options.external_data = false;
        auto result = txn.Publish(options);
        progress->Finish();
        if (!result.ok()) {
          PrintNothingPublished(repo);
          return result.status();
        }
        if (result->finished_interrupted) {
          std::printf(
              "revision %llu had been published by an interrupted publish; "
              "finished its "
              "cleanup, the transaction is closed\n",
              static_cast<unsigned long long>(result->stats.revision));
          return Status::Ok();
        }
        double secs = std::chrono::duration<double>(
                          std::chrono::steady_clock::now() - start)
                          .count();
        PrintPublished(*result, secs);
        if (args.verbose) return PrintChangeSet(repo);
        return Status::Ok();
      });
}

// After the repository's lock is released: CVMFS_AUTO_GC (auto_gc.h).
Status RunPublish(const cvmfs::SystemPaths& paths, const Args& args) {
  Status st = PublishInTransaction(paths, args);
  if (st.ok()) {
    auto fqrn = ResolveFqrn(paths, args.fqrn);
    if (fqrn.ok()) RunAutoGc(paths, *fqrn);
  }
  return st;
}

Status RunAbort(const cvmfs::SystemPaths& paths, const Args& args) {
  return WithTransaction(
      paths, args.fqrn, [&](Repository& repo, Transaction& txn) -> Status {
        const std::string& fqrn = repo.config().fqrn;
        auto state = txn.State();
        if (state.ok() && !state->transaction)
          return Status::InvalidArgument("no transaction is open on " + fqrn);
        if (!args.force && !Confirm("Abort the transaction of " + fqrn +
                                    " and throw all its changes away?"))
          return Status::InvalidArgument(
              "not confirmed; the transaction stays open");
        bool finished = false;
        CVMFS_RETURN_IF_ERROR(txn.Abort(&finished));
        if (finished)
          std::printf(
              "the transaction had been published by an interrupted publish; "
              "finished its "
              "cleanup\n");
        else
          std::printf("transaction of %s aborted\n", fqrn.c_str());
        return Status::Ok();
      });
}

Status RunMount(const cvmfs::SystemPaths& paths, const Args& args) {
  std::vector<std::string> names;
  if (args.all) {
    auto all = cvmfs::ListDirectory(paths.RepositoriesD());
    if (all.ok()) names = *all;
  } else {
    CVMFS_ASSIGN_OR_RETURN(std::string fqrn, ResolveFqrn(paths, args.fqrn));
    names.push_back(fqrn);
  }
  Status first;
  for (const std::string& fqrn : names) {
    Status st = WithTransaction(
        paths, fqrn, [&](Repository&, Transaction& txn) -> Status {
          std::string repaired;
          CVMFS_RETURN_IF_ERROR(txn.Mount(&repaired));
          std::printf("%s: %s\n", fqrn.c_str(),
                      repaired.empty() ? "mounts are fine" : repaired.c_str());
          return Status::Ok();
        });
    if (!st.ok() && first.ok()) first = st.Annotate(fqrn);
    if (!st.ok() && args.all) FailMessage(st.Annotate(fqrn));
  }
  return first;
}

// Transaction::Open, retried while the repository is busy (a transaction
// is open, or another publish holds the lock) for `retry_timeout` seconds
// (0: forever), with CVMFS's back-off (0.5 s doubling up to 5 s); no retry
// when it is negative (no -t).
Status OpenRetrying(Transaction& t, const std::string& lease,
                    int retry_timeout) {
  using Clock = std::chrono::steady_clock;
  const auto deadline = Clock::now() + std::chrono::seconds(retry_timeout);
  std::chrono::milliseconds wait(500);
  while (true) {
    Status st = t.Open(lease);
    if (st.code() != Status::Code::kBusy || retry_timeout < 0) return st;
    if (retry_timeout > 0 && Clock::now() >= deadline) return st;
    std::printf("repository busy, retrying\n");
    std::fflush(stdout);
    auto pause = wait;
    if (retry_timeout > 0)
      pause =
          std::min(pause, std::chrono::duration_cast<std::chrono::milliseconds>(
                              deadline - Clock::now()) +
                              std::chrono::milliseconds(1));
    ::usleep(static_cast<useconds_t>(pause.count() * 1000));
    wait = std::min(wait * 2, std::chrono::milliseconds(5000));
  }
}

// `transaction FQRN/PATH`: the repository name and the path to lease from
// the gateway, as CVMFS takes them (one argument).
Status RunOpen(const cvmfs::SystemPaths& paths, const Args& args) {
  const size_t slash = args.fqrn.find('/');
  const std::string fqrn = args.fqrn.substr(0, slash);
  const std::string lease =
      slash == std::string::npos ? "" : args.fqrn.substr(slash + 1);
  if (slash != std::string::npos) {
    // Both halves must be well-formed: no other repository (nor, with an
    // empty name, the only one) may be reached by accident.
    auto parsed = publisher::ParseLeasePath(args.fqrn);
    if (!ValidateRepositoryName(fqrn).ok() || lease.empty() || !parsed.ok())
      return Status::InvalidArgument(
          "'" + args.fqrn +
          "' is not a valid repository name, nor FQRN/PATH with a valid "
          "repository name and a relative path without '.', '..' or empty "
          "components");
  }
  return WithTransaction(
      paths, fqrn, [&](Repository& repo, Transaction& t) -> Status {
        CVMFS_RETURN_IF_ERROR(OpenRetrying(t, lease, args.retry_timeout));
        std::printf(
            "transaction of %s opened: change %s, then cvmfs_server "
            "publish\n",
            repo.config().fqrn.c_str(), t.layout().union_mount.c_str());
        if (repo.config().on_gateway()) {
          auto state = t.State();
          std::printf("leased %s%s from the gateway %s\n",
                      repo.config().fqrn.c_str(),
                      state.ok() && state->transaction
                          ? state->transaction->lease_path.c_str()
                          : "/",
                      repo.config().gateway_url.c_str());
        }
        return Status::Ok();
      });
}

}  // namespace

Status SetUpTransactions(const cvmfs::SystemPaths& paths,
                         const std::string& fqrn) {
  const char* opt_out = std::getenv("CVMFS_SERVER_NO_MOUNT");
  Status support = opt_out && std::string(opt_out) == "1"
                       ? Status::NotSupported("CVMFS_SERVER_NO_MOUNT=1 is set")
                       : RepositoryMounts::CheckSupport();
  if (!support.ok()) {
    std::fprintf(
        stderr,
        "warning: %s: transactions are not set up (%s); ingest works, and "
        "cvmfs_server mount %s sets them up later\n",
        fqrn.c_str(), support.message().c_str(), fqrn.c_str());
    return Status::Ok();
  }
  CVMFS_ASSIGN_OR_RETURN(auto repo, Repository::Open(paths, fqrn));
  Transaction txn(paths, repo.get());
  return txn.SetUp().Annotate("setting up the transaction mounts of " + fqrn);
}

Status TearDownTransactions(const cvmfs::SystemPaths& paths,
                            const std::string& fqrn,
                            const std::string& spool_dir, bool force) {
  // Without Repository::Open: a repository with damaged keys can be removed
  // too.
  RepositoryMounts mounts(SpoolLayout::For(paths, fqrn, spool_dir), fqrn);
  CVMFS_RETURN_IF_ERROR(mounts.UnmountUnion(force));
  CVMFS_RETURN_IF_ERROR(mounts.UnmountReadOnlyLayer(force));
  (void)::rmdir(mounts.layout().union_mount.c_str());
  // A background deletion of old scratch areas may still run: entries
  // vanish under our feet (NotFound) until the wastebin is gone.
  Status st;
  for (int attempt = 0; attempt < 100; ++attempt) {
    st = cvmfs::RemoveTree(mounts.layout().wastebin);
    if (st.ok() || st.code() != Status::Code::kNotFound) break;
    ::usleep(20000);
  }
  return st;
}

std::string DescribeTransactionState(const cvmfs::SystemPaths& paths,
                                     const std::string& fqrn) {
  auto repo = Repository::Open(paths, fqrn);
  if (!repo.ok()) return " - " + repo.status().message();
  Transaction txn(paths, repo->get());
  auto state = txn.State();
  if (!state.ok()) return " - " + state.status().message();
  std::string out;
  if (state->transaction) out += " - in transaction";
  if (state->mounts_configured && !state->mounts.healthy())
    out += " - mounts missing";
  return out;
}

void FollowCurrentRevision(const cvmfs::SystemPaths& paths, Repository* repo) {
  Transaction txn(paths, repo);
  Status st = txn.FollowCurrentRevision();
  if (!st.ok())
    std::fprintf(
        stderr,
        "warning: the read-only layer of %s still shows the previous revision "
        "(%s); run cvmfs_server mount %s\n",
        repo->config().fqrn.c_str(), st.ToString().c_str(),
        repo->config().fqrn.c_str());
}

std::vector<Command> AddTransactionCommands(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<Args>();

  auto* txn = app.add_subcommand(
      "transaction", "open a transaction: make /cvmfs/FQRN writable");
  txn->add_option("-t,--retry-timeout", args->retry_timeout,
                  "retry for at most this many seconds while the repository "
                  "is busy (0: forever)")
      ->check(CLI::NonNegativeNumber);
  AddRefusedOption(txn, "-T,--template",
                   "templates (cloning a directory when the transaction "
                   "opens) are not implemented; copy it in the transaction",
                   true);
  AddRefusedOption(txn, "-U,--template-from",
                   "templates are not implemented (see -T)", true);
  AddRefusedOption(txn, "-V,--template-to",
                   "templates are not implemented (see -T)", true);
  // Not "fqrn": FQRN/PATH is no repository name (RunOpen checks the name).
  txn->add_option("repository", args->fqrn,
                  "repository name; FQRN/PATH on a publisher machine of a "
                  "gateway leases PATH only (doc/gateway.md)");

  auto* publish = app.add_subcommand(
      "publish", "publish the open transaction as a new revision");
  publish->add_option("-a", args->tag,
                      "tag name for the new revision (instead of the "
                      "automatic generic-<time>); must be new");
  publish->add_option("-m", args->message, "tag description");
  publish->add_flag("-v", args->verbose,
                    "verbose: print the change set of the new revision");
  AddRefusedOption(publish, "-p",
                   "pausing for tweaks is not implemented; change the "
                   "transaction before publishing");
  AddRefusedOption(publish, "-n",
                   "manual revision numbers are not implemented (revisions "
                   "count up by one)",
                   true);
  publish->add_flag("-X", args->force_external,
                    "publish the new files as external data (fetched by "
                    "path from the clients' CVMFS_EXTERNAL_URL)");
  publish->add_flag("-N", args->force_native,
                    "publish the new files as native data, even with "
                    "CVMFS_EXTERNAL_DATA=true");
  AddRefusedOption(publish, "-Z",
                   "a compression algorithm per publish is not implemented; "
                   "CVMFS_COMPRESSION_ALGORITHM in server.conf applies",
                   true);
  AddRefusedOption(publish, "-F",
                   "authz (membership requirement) files are not implemented",
                   true);
  AddRefusedOption(publish, "-f",
                   "publish never remounts by force; files open for writing "
                   "must be closed first");
  AddRefusedOption(publish, "-d", "direct I/O is not implemented");
  publish->add_option("fqrn", args->fqrn, "repository name");

  auto* abort =
      app.add_subcommand("abort", "throw the open transaction's changes away");
  abort->add_flag("-f", args->force, "do not ask");
  abort->add_option("fqrn", args->fqrn, "repository name");

  auto* mount =
      app.add_subcommand("mount",
                         "mount a repository's read-only layer and union file "
                         "system (e.g. after a reboot)");
  mount->add_flag("-a", args->all, "all repositories");
  mount->add_option("fqrn", args->fqrn, "repository name");

  return {MakeCommand(txn, paths, args, RunOpen),
          MakeCommand(publish, paths, args, RunPublish),
          MakeCommand(abort, paths, args, RunAbort),
          MakeCommand(mount, paths, args, RunMount)};
}

}  // namespace cvmfs_server
