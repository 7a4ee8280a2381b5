#include "publisher/transaction.h"

#include <chrono>
#include <ctime>

#include "cvmfs/file_util.h"
#include "cvmfs/time_format.h"
#include "publisher/gateway_publish.h"
#include "publisher/hooks.h"
#include "publisher/lease_path.h"
#include "publisher/open_writers.h"

namespace publisher {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;

namespace {

using Clock = std::chrono::steady_clock;

double SecondsSince(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

std::string Revision(uint64_t r) { return "revision " + std::to_string(r); }

std::string FormatTime(int64_t t) {
  return cvmfs::FormatTime(t, cvmfs::kDateTimeFormat, cvmfs::TimeZone::kLocal);
}

}  // namespace

Transaction::Transaction(const cvmfs::SystemPaths& paths, Repository* repo)
    : paths_(paths),
      repo_(repo),
      layout_(SpoolLayout::For(paths, repo->config().fqrn,
                               repo->config().spool_dir)),
      mounts_(layout_, repo->config().fqrn) {}

Status Transaction::Hook(const std::string& name) {
  return RunHook(HooksFile(paths_), name, repo_->config().fqrn);
}

Result<RepositoryState> Transaction::State() {
  RepositoryState s;
  CVMFS_ASSIGN_OR_RETURN(s.transaction,
                         TransactionState::Load(layout_.in_transaction));
  s.mounts_configured = mounts_.HasClientConfig();
  CVMFS_ASSIGN_OR_RETURN(s.mounts, mounts_.Health());
  return s;
}

Status Transaction::SetUp() {
  std::string done;
  return Mount(&done);
}

// The mounts as they should be: rdonly at `root`, the union on top of it
// (read-write in a transaction). Only what is missing or wrong is redone.
Status Transaction::EnsureMounts(const Digest& root, bool writable,
                                 std::string* repaired) {
  CVMFS_ASSIGN_OR_RETURN(MountHealth h, mounts_.Health());
  if (h.rdonly_mounted && h.rdonly_root != root) {
    CVMFS_RETURN_IF_ERROR(mounts_.UnmountUnion());
    CVMFS_RETURN_IF_ERROR(mounts_.UnmountReadOnlyLayer());
    h.rdonly_mounted = h.union_mounted = false;
  }
  if (!h.rdonly_mounted) {
    CVMFS_RETURN_IF_ERROR(
        mounts_.UnmountUnion());  // never over an empty lower layer
    h.union_mounted = false;
    CVMFS_RETURN_IF_ERROR(mounts_.MountReadOnlyLayer(root));
    *repaired += "mounted " + layout_.rdonly + " at " + root.ToString() + "; ";
  }
  if (!h.union_mounted) {
    CVMFS_RETURN_IF_ERROR(mounts_.MountUnion(writable));
    *repaired += "mounted " + layout_.union_mount +
                 (writable ? " read-write" : " read-only") + "; ";
  } else if (h.union_writable != writable) {
    CVMFS_RETURN_IF_ERROR(mounts_.RemountUnion(writable));
    *repaired += "remounted " + layout_.union_mount +
                 (writable ? " read-write" : " read-only") + "; ";
  }
  return Status::Ok();
}

Status Transaction::Mount(std::string* repaired) {
  CVMFS_RETURN_IF_ERROR(repo_->Lock());
  if (!mounts_.HasClientConfig()) {
    // Created where it could not mount (mkfs said so): set it up now.
    CVMFS_RETURN_IF_ERROR(RepositoryMounts::CheckSupport());
    CVMFS_RETURN_IF_ERROR(layout_.CreateDirectories());
    const ServerConfig& c = repo_->config();
    // Local storage is read directly; S3 through the bucket's HTTP
    // endpoint, a gateway's repository from its stratum 0: the stratum 0
    // URL (mkfs -w).
    CVMFS_RETURN_IF_ERROR(mounts_.WriteClientConfig(
        c.on_s3() || c.on_gateway() ? c.stratum0_url
                                    : "file://" + c.storage_dir,
        KeyFiles::In(c.keys_dir, c.fqrn).master_pub));
    *repaired += "wrote " + layout_.client_config + "; ";
  }
  CVMFS_ASSIGN_OR_RETURN(auto state,
                         TransactionState::Load(layout_.in_transaction));
  if (state) {
    CVMFS_ASSIGN_OR_RETURN(bool committed, CommittedBefore(*state));
    if (!committed) return EnsureMounts(state->base_root, true, repaired);
    CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
    *repaired += "finished the cleanup of an interrupted publish; ";
    return FinishCommitted(current.manifest.root_catalog);
  }
  CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
  return EnsureMounts(current.manifest.root_catalog, false, repaired);
}

// True when a publish of this transaction reached its commit point before
// (the manifest names the root recorded in `publishing`). Fails when the
// repository moved away from the transaction's base some other way.
Result<bool> Transaction::CommittedBefore(const TransactionState& state) {
  // Through a gateway, other publishers' commits move the repository on
  // while the transaction is open; a commit of ours ends the lease, and
  // its publish forgets the lease before it cleans up.
  if (repo_->config().on_gateway()) return false;
  CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
  const Digest& root = current.manifest.root_catalog;
  if (root == state.base_root) return false;
  CVMFS_ASSIGN_OR_RETURN(auto publishing,
                         PublishingState::Load(layout_.publishing));
  if (publishing && publishing->new_root == root) return true;
  return Status::Corruption(
      "the transaction on " + repo_->config().fqrn + " is based on " +
      Revision(state.base_revision) + " (" + state.base_root.ToString() +
      "), but " + Revision(current.manifest.revision) +
      " was published since; its changes cannot be "
      "published on top: abort the transaction (cvmfs_server abort -f " +
      repo_->config().fqrn + ")");
}

Status Transaction::Open(const std::string& lease_path) {
  const std::string& fqrn = repo_->config().fqrn;
  const bool gateway = repo_->config().on_gateway();
  if (!gateway && !lease_path.empty() && lease_path != "/")
    return Status::InvalidArgument(
        "a path in the transaction (" + fqrn + "/" + lease_path +
        ") is for publisher machines of a gateway; " + fqrn +
        " is not published through one");
  std::string leased;  // "/" or "/a/b"
  if (gateway) {
    const size_t start = lease_path.find_first_not_of('/');
    CVMFS_ASSIGN_OR_RETURN(
        auto lease,
        ParseLeasePath(
            fqrn + "/" +
            (start == std::string::npos ? "" : lease_path.substr(start))));
    leased = lease.path;
  }
  CVMFS_RETURN_IF_ERROR(repo_->Lock());
  CVMFS_ASSIGN_OR_RETURN(auto state,
                         TransactionState::Load(layout_.in_transaction));
  if (state)
    return Status::Busy("a transaction is already open on " + fqrn +
                        " (since " + FormatTime(state->opened_at) +
                        ", based on " + Revision(state->base_revision) +
                        "); publish or abort it first");
  CVMFS_ASSIGN_OR_RETURN(MountHealth h, mounts_.Health());
  if (!mounts_.HasClientConfig() || !h.healthy())
    return Status::Unavailable(fqrn + " is not ready for a transaction: " +
                               (mounts_.HasClientConfig()
                                    ? h.Problems(layout_)
                                    : layout_.client_config + " is missing") +
                               "; run cvmfs_server mount " + fqrn);
  if (!gateway) return OpenOnCurrent("");
  // The lease first: then no commit into the path can come between the
  // revision read below and the transaction.
  CVMFS_RETURN_IF_ERROR(OpenLease(leased));
  Status opened = OpenOnCurrent(leased);
  if (!opened.ok()) {
    std::string note;
    (void)DropLease(&note);
  }
  return opened;
}

// Open() once the repository is locked and ready (and the path leased).
Status Transaction::OpenOnCurrent(const std::string& leased) {
  CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
  if (!leased.empty())
    CVMFS_RETURN_IF_ERROR(
        CheckLeaseParent(repo_, current.manifest.root_catalog, leased));
  CVMFS_RETURN_IF_ERROR(
      RemoveStateFile(layout_.publishing));  // of a finished publish
  CVMFS_ASSIGN_OR_RETURN(MountHealth h, mounts_.Health());
  if (h.rdonly_root != current.manifest.root_catalog)
    CVMFS_RETURN_IF_ERROR(RemountAt(current.manifest.root_catalog));
  CVMFS_RETURN_IF_ERROR(Hook("transaction_before_hook"));
  TransactionState s{current.manifest.root_catalog, current.manifest.revision,
                     ::time(nullptr), leased};
  CVMFS_RETURN_IF_ERROR(s.Store(layout_.in_transaction));
  Status writable = mounts_.RemountUnion(true);
  if (!writable.ok() && !leased.empty()) {
    // Open() drops the lease: no transaction is left open either.
    (void)RemoveStateFile(layout_.in_transaction);
  }
  CVMFS_RETURN_IF_ERROR(writable);
  return Hook("transaction_after_hook")
      .Annotate("the transaction is open, but");
}

Status Transaction::RefuseOpenWriters() {
  auto writers = FindOpenWriters(layout_.union_mount);
  auto direct = FindOpenWriters(layout_.scratch_current);
  writers.insert(writers.end(), direct.begin(), direct.end());
  if (writers.empty()) return Status::Ok();
  return Status::Busy("files of " + repo_->config().fqrn +
                      " are open for writing: " + DescribeOpenWriters(writers) +
                      "; close them and try again");
}

// Shows revision `root` in both layers; the scratch area is emptied.
Status Transaction::RemountAt(const Digest& root) {
  CVMFS_RETURN_IF_ERROR(mounts_.UnmountUnion());
  CVMFS_RETURN_IF_ERROR(mounts_.UnmountReadOnlyLayer());
  CVMFS_RETURN_IF_ERROR(mounts_.MountReadOnlyLayer(root));
  CVMFS_RETURN_IF_ERROR(mounts_.ResetScratch());
  return mounts_.MountUnion(false);
}

// After the commit point: every step here may be repeated after a crash.
Status Transaction::FinishCommitted(const Digest& root) {
  CVMFS_RETURN_IF_ERROR(RemountAt(root));
  CVMFS_RETURN_IF_ERROR(RemoveStateFile(layout_.in_transaction));
  return RemoveStateFile(layout_.publishing);
}

UpperApplyOptions Transaction::ApplyOptions(
    const PublishOptions& options) const {
  const ServerConfig& c = repo_->config();
  UpperApplyOptions apply;
  apply.hash_algorithm = c.hash_algorithm;
  apply.compression = c.compression;
  apply.ignore_special_files = c.ignore_special_files;
  apply.external_data = options.external_data.value_or(c.external_data);
  apply.scan.include_xattrs = c.include_xattrs;
  return apply;
}

Result<PublishStats> Transaction::BuildAndCommit(
    const TransactionState& state, const PublishOptions& options,
    TransactionPublishResult* result) {
  const UpperApplyOptions apply = ApplyOptions(options);
  PublishOptions opts = options;
  opts.from_transaction = true;
  opts.before_commit = [this, &state](const Digest& root,
                                      uint64_t revision) -> Status {
    CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
    if (current.manifest.root_catalog != state.base_root)
      return Status::Corruption("the repository changed during the publish");
    return PublishingState{root, revision}.Store(layout_.publishing);
  };
  const auto start = Clock::now();
  auto stats = repo_->Publish(
      [&](CatalogTree* tree, IngestPipeline* pipeline) {
        Status st = ApplyUpperLayer(layout_.scratch_current, apply, tree,
                                    pipeline, &result->changes);
        pipeline->Drain();
        result->scan_seconds = SecondsSince(start);
        return st;
      },
      opts);
  result->commit_seconds = SecondsSince(start) - result->scan_seconds;
  return stats;
}

Result<TransactionPublishResult> Transaction::Publish(
    const PublishOptions& options) {
  const std::string& fqrn = repo_->config().fqrn;
  CVMFS_RETURN_IF_ERROR(repo_->Lock());
  CVMFS_ASSIGN_OR_RETURN(auto state,
                         TransactionState::Load(layout_.in_transaction));
  if (!state)
    return Status::InvalidArgument("no transaction is open on " + fqrn +
                                   "; open one with cvmfs_server transaction " +
                                   fqrn);
  TransactionPublishResult result;
  CVMFS_ASSIGN_OR_RETURN(bool committed, CommittedBefore(*state));
  if (committed) {
    CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
    CVMFS_RETURN_IF_ERROR(FinishCommitted(current.manifest.root_catalog));
    result.finished_interrupted = true;
    result.stats.revision = current.manifest.revision;
    result.stats.root_hash = current.manifest.root_catalog;
    return result;
  }
  std::string repaired;
  CVMFS_RETURN_IF_ERROR(EnsureMounts(state->base_root, true, &repaired));
  CVMFS_RETURN_IF_ERROR(RefuseOpenWriters());
  CVMFS_RETURN_IF_ERROR(Hook("publish_before_hook"));
  // Nothing may change underneath while the upper layer is read.
  CVMFS_RETURN_IF_ERROR(mounts_.RemountUnion(false));
  auto stats = repo_->config().on_gateway()
                   ? BuildAndSend(*state, options, &result)
                   : BuildAndCommit(*state, options, &result);
  if (!stats.ok()) {
    (void)RemoveStateFile(
        layout_.publishing);  // names a root that was never committed
    // The transaction stays open: make the union writable again.
    Status reopened = mounts_.RemountUnion(true);
    if (!reopened.ok())
      return reopened.Annotate(stats.status().ToString() + "; afterwards");
    return stats.status();
  }
  result.stats = *stats;
  const auto cleanup_start = Clock::now();
  CVMFS_RETURN_IF_ERROR(
      FinishCommitted(stats->root_hash)
          .Annotate("published " + Revision(stats->revision) +
                    ", but the cleanup failed (run cvmfs_server publish " +
                    fqrn + " again to finish it)"));
  result.cleanup_seconds = SecondsSince(cleanup_start);
  Status after = Hook("publish_after_hook");
  if (!after.ok()) result.stats.warnings.push_back(after.ToString());
  return result;
}

Status Transaction::Abort(bool* finished_interrupted) {
  const std::string& fqrn = repo_->config().fqrn;
  *finished_interrupted = false;
  CVMFS_RETURN_IF_ERROR(repo_->Lock());
  CVMFS_ASSIGN_OR_RETURN(auto state,
                         TransactionState::Load(layout_.in_transaction));
  if (!state)
    return Status::InvalidArgument("no transaction is open on " + fqrn);
  CVMFS_RETURN_IF_ERROR(Hook("abort_before_hook"));
  auto committed = CommittedBefore(*state);
  if (committed.ok() && *committed) *finished_interrupted = true;
  CVMFS_RETURN_IF_ERROR(RefuseOpenWriters());
  if (repo_->config().on_gateway()) {
    std::string note;
    CVMFS_RETURN_IF_ERROR(DropLease(&note).Annotate(
        "dropping the lease on the gateway (the transaction stays open)"));
  }
  CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
  CVMFS_RETURN_IF_ERROR(FinishCommitted(current.manifest.root_catalog));
  return Hook("abort_after_hook").Annotate("the transaction was aborted, but");
}

Status Transaction::FollowCurrentRevision() {
  if (!mounts_.HasClientConfig()) return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(MountHealth h, mounts_.Health());
  if (!h.rdonly_mounted)
    return Status::Ok();  // `cvmfs_server mount` will do it
  CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
  if (h.rdonly_root == current.manifest.root_catalog) return Status::Ok();
  return RemountAt(current.manifest.root_catalog);
}

Status Transaction::TearDown(bool force) {
  CVMFS_RETURN_IF_ERROR(mounts_.UnmountUnion(force));
  return mounts_.UnmountReadOnlyLayer(force);
}

}  // namespace publisher
