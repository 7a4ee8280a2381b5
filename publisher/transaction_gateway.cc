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
  return ToPublishStats(repo_, *sent);
}

}  // namespace publisher
