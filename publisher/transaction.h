// Transaction: the release manager's workflow on one repository, over the
// mounts of repository_mounts.h and the state files of transaction_state.h.
//
//   SetUp()     (mkfs)  spool directories, client.conf, both mounts (ro)
//   Mount()             re-establishes missing mounts as the state says
//   Open()      transaction: state file, union remounted read-write
//   Publish()   union read-only, upper layer -> new revision (the same
//               pipeline and catalog code as ingest), then the rdonly layer
//               at the new revision and an empty scratch area
//   Abort()     scratch area thrown away, union read-only again
//
// Crash safety: every step first records what it is about to do, and
// every later step can be repeated. A publish killed before its manifest is
// written leaves the previous revision served and the transaction open
// (publish or abort again); killed after it, `publishing` names the new
// root, and the next publish or abort only finishes the cleanup. The
// repository lock is an flock, so a dead holder never blocks.
//
// Hooks (hooks.h) run around Open, Publish and Abort. Everything holds the
// repository's lock (Repository::Lock) from start to end.
//
// Thread safety: none; one per command.
#ifndef PUBLISHER_TRANSACTION_H_
#define PUBLISHER_TRANSACTION_H_

#include <optional>
#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"
#include "publisher/repository.h"
#include "publisher/repository_mounts.h"
#include "publisher/spool_layout.h"
#include "publisher/transaction_state.h"
#include "publisher/upper_applier.h"

namespace publisher {

struct TransactionPublishResult {
  PublishStats stats;
  UpperChanges changes;
  // The publish had already committed before (a killed publisher); only
  // its cleanup ran now.
  bool finished_interrupted = false;
  // Wall-clock seconds of the phases: reading the upper layer into the
  // pipeline and the catalogs; storing catalogs, history and manifest;
  // remounting and emptying the scratch area.
  double scan_seconds = 0, commit_seconds = 0, cleanup_seconds = 0;
};

struct RepositoryState {
  std::optional<TransactionState> transaction;
  bool mounts_configured = false;  // mkfs set up the transaction mounts
  MountHealth mounts;
};

class Transaction {
 public:
  Transaction(const cvmfs::SystemPaths& paths, Repository* repo);

  cvmfs::Status SetUp();
  // Re-establishes what is missing (first the spool area and client.conf
  // of a repository created without mounts); `repaired` says what was done.
  cvmfs::Status Mount(std::string* repaired);
  // `lease_path` ("/a/b"; "" or "/" for the whole repository) is for a
  // publisher machine of a gateway (ServerConfig::on_gateway): the path is
  // leased from the gateway (gateway_session.h) before anything else.
  cvmfs::Status Open(const std::string& lease_path = "");
  cvmfs::Result<TransactionPublishResult> Publish(
      const PublishOptions& options);
  // `finished_interrupted` is set when the transaction had in fact been
  // published by a killed publisher: only its cleanup ran.
  cvmfs::Status Abort(bool* finished_interrupted);
  // After ingest or rollback: shows the new revision in the rdonly layer (if
  // the mounts are in use).
  cvmfs::Status FollowCurrentRevision();
  // rmfs: unmounts both layers (lazily with `force` when busy).
  cvmfs::Status TearDown(bool force);

  cvmfs::Result<RepositoryState> State();
  const SpoolLayout& layout() const { return layout_; }

 private:
  cvmfs::Status Hook(const std::string& name);
  cvmfs::Status EnsureMounts(const cvmfs::Digest& root, bool writable,
                             std::string* repaired);
  cvmfs::Status RefuseOpenWriters();
  cvmfs::Status RemountAt(const cvmfs::Digest& root);
  cvmfs::Status FinishCommitted(const cvmfs::Digest& root);
  cvmfs::Result<bool> CommittedBefore(const TransactionState& state);
  cvmfs::Result<PublishStats> BuildAndCommit(const TransactionState& state,
                                             const PublishOptions& options,
                                             TransactionPublishResult* result);
  // The gateway mode's parts (transaction_gateway.cc): the lease of Open,
  // the build sent to the gateway of Publish, the lease dropped by Abort.
  cvmfs::Status OpenOnCurrent(const std::string& leased);
  cvmfs::Status OpenLease(const std::string& lease_path);
  cvmfs::Result<PublishStats> BuildAndSend(const TransactionState& state,
                                           const PublishOptions& options,
                                           TransactionPublishResult* result);
  cvmfs::Status DropLease(std::string* note);
  UpperApplyOptions ApplyOptions(const PublishOptions& options) const;

  cvmfs::SystemPaths paths_;
  Repository* repo_;  // not owned; outlives this object
  SpoolLayout layout_;
  RepositoryMounts mounts_;
};

}  // namespace publisher

#endif  // PUBLISHER_TRANSACTION_H_
