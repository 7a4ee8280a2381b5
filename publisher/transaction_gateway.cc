// The gateway mode of Transaction (transaction.h; doc/gateway.md,
// "Publisher machines"): a lease on the gateway from Open to Publish or
// Abort, and a publish whose change goes to the gateway instead of the
// storage.
#include <chrono>

#include "cvmfs/file_util.h"
#include "publisher/catalog_tree.h"
#include "publisher/gateway_publish.h"
#include "publisher/gateway_session.h"
#include "publisher/transaction.h"

namespace publisher {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;

Status Transaction::OpenLease(const std::string& lease_path) {
  CVMFS_ASSIGN_OR_RETURN(GatewaySession session,
                         GatewaySession::For(repo_->config(), layout_));
  // A token left by a transaction whose state is gone (killed in Open).
  std::string note;
  (void)session.Drop(&note);
  return session.Acquire(lease_path);
}

Status Transaction::CheckLeaseParent(const Digest& root,
                                     const std::string& lease_path) {
  if (lease_path == "/") return Status::Ok();
  const std::string parent = lease_path.substr(0, lease_path.rfind('/'));
  CVMFS_ASSIGN_OR_RETURN(std::string temp, repo_->MakeTempDir());
  cvmfs::ScopedRemoveTree remove_temp(temp);
  const CatalogTreeOptions options{repo_->config().hash_algorithm,
                                   repo_->config().ttl, temp};
  CVMFS_ASSIGN_OR_RETURN(auto tree,
                         CatalogTree::Open(repo_->store(), root, options));
  CVMFS_ASSIGN_OR_RETURN(auto entry, tree->Lookup(parent));
  if (!entry)
    return Status::NotFound("cannot open a transaction on " + lease_path +
                            ": its parent " + (parent.empty() ? "/" : parent) +
                            " does not exist");
  if (!entry->IsDirectory())
    return Status::InvalidArgument("cannot open a transaction on " +
                                   lease_path + ": its parent " + parent +
                                   " is not a directory");
  return Status::Ok();
}

Status Transaction::DropLease(std::string* note) {
  CVMFS_ASSIGN_OR_RETURN(GatewaySession session,
                         GatewaySession::For(repo_->config(), layout_));
  return session.Drop(note);
}

Result<PublishStats> Transaction::BuildAndSend(
    const TransactionState& state, const PublishOptions& options,
    TransactionPublishResult* result) {
  using Clock = std::chrono::steady_clock;
  CVMFS_ASSIGN_OR_RETURN(GatewaySession session,
                         GatewaySession::For(repo_->config(), layout_));
  CVMFS_ASSIGN_OR_RETURN(std::string token, session.Token());
  const UpperApplyOptions apply = ApplyOptions(options);
  GatewayPublishRequest request{
      state.base_root, state.base_revision,
      state.lease_path.empty() ? "/" : state.lease_path, token};
  const auto start = Clock::now();
  auto sent = PublishThroughGateway(
      repo_, &session, request,
      [&](CatalogTree* tree, IngestPipeline* pipeline) {
        Status st = ApplyUpperLayer(layout_.scratch_current, apply, tree,
                                    pipeline, &result->changes);
        pipeline->Drain();
        result->scan_seconds =
            std::chrono::duration<double>(Clock::now() - start).count();
        return st;
      },
      options);
  result->commit_seconds =
      std::chrono::duration<double>(Clock::now() - start).count() -
      result->scan_seconds;
  if (!sent.ok()) return sent.status();
  // The commit ended the lease.
  CVMFS_RETURN_IF_ERROR(session.Forget());
  CVMFS_ASSIGN_OR_RETURN(auto current, repo_->CurrentManifest());
  PublishStats stats;
  stats.revision = sent->revision;
  stats.root_hash = current.manifest.root_catalog;
  stats.files = sent->files;
  stats.bytes_in = sent->bytes_in;
  stats.objects_stored = sent->objects_sent;
  stats.bytes_stored = sent->bytes_sent;
  return stats;
}

}  // namespace publisher
