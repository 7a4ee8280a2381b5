// The durable state of a repository's transaction, in two small files of
// the spool area (spool_layout.h), written atomically and fsync()ed so that
// they survive a crash of the publisher or of the machine:
//
//   in_transaction  BASE_ROOT_HASH, BASE_REVISION, OPENED_AT: a transaction
//                   is open; its scratch area was made on top of that base.
//                   LEASE_PATH ("/" or "/a/b") on a publisher machine of a
//                   gateway: the path the transaction leased, whose token
//                   is in session_token (gateway_session.h).
//   publishing      NEW_ROOT_HASH, NEW_REVISION: a publish of the open
//                   transaction wrote everything but the manifest. If the
//                   manifest now names NEW_ROOT_HASH, the publish committed
//                   and only its cleanup (remount, empty scratch) is left.
//
//        transaction          publish: catalogs done      manifest renamed
//   idle ───────────► open ─────────────────────► open+publishing ─────────►
//    ▲                 │ abort                          │ cleanup          │
//    └─────────────────┴────────────────────────────────┴──────────────────┘
//
// Both files use the KEY=VALUE syntax of server.conf. Thread safety: plain
// values and free functions.
#ifndef PUBLISHER_TRANSACTION_STATE_H_
#define PUBLISHER_TRANSACTION_STATE_H_

#include <cstdint>
#include <optional>
#include <string>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace publisher {

struct TransactionState {
  cvmfs::Digest base_root;
  uint64_t base_revision = 0;
  int64_t opened_at = 0;   // seconds since the epoch
  std::string lease_path;  // gateway mode only: "/" or "/a/b"

  // nullopt when the file does not exist; Corruption for a damaged file.
  static cvmfs::Result<std::optional<TransactionState>> Load(
      const std::string& file);
  cvmfs::Status Store(const std::string& file) const;
};

struct PublishingState {
  cvmfs::Digest new_root;
  uint64_t new_revision = 0;

  static cvmfs::Result<std::optional<PublishingState>> Load(
      const std::string& file);
  cvmfs::Status Store(const std::string& file) const;
};

// Removes a state file durably; a missing file is ok.
cvmfs::Status RemoveStateFile(const std::string& file);

}  // namespace publisher

#endif  // PUBLISHER_TRANSACTION_STATE_H_
