// ReplicaStatus: what `cvmfs_server list` and `cvmfs_server info` show for a
// Stratum 1 replica, read from its configuration and its storage only (no
// request to the source; an S3 replica's storage is its bucket): the source
// it follows, the revision it serves and when the last
// snapshot finished.
//
//   list:  "<name> (stratum1 / local)"         as CVMFS prints it ("/ S3"
//          for a replica in S3), with
//          "<alias> (stratum1 / local) -> <fqrn>" for a replica added with
//          `add-replica -n <alias>`;
//   info:  name, type, upstream (Stratum 0) URL, last snapshot, served
//          revision and its publish time, whitelist expiry, storage.
//
// A replica that has not been snapshotted yet has no manifest: it is shown
// as "no snapshot yet", not as an error.
//
// Thread safety: free functions over plain values.
#ifndef SERVER_REPLICATION_REPLICA_STATUS_H_
#define SERVER_REPLICATION_REPLICA_STATUS_H_

#include <cstdint>
#include <optional>
#include <string>

#include "cvmfs/manifest.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"
#include "server/replication/replica_config.h"

namespace replication {

struct ReplicaStatus {
  ReplicaConfig config;
  // The first line of .cvmfs_last_snapshot ("Thu Nov 20 15:36:01 UTC 2025").
  std::optional<std::string> last_snapshot;
  std::optional<cvmfs::Manifest> manifest;   // the served .cvmfspublished
  std::optional<int64_t> whitelist_expires;  // of the served .cvmfswhitelist
};

// NotFound / InvalidArgument as ReplicaConfig::Load; Corruption when the
// stored manifest cannot be parsed (naming the file).
cvmfs::Result<ReplicaStatus> LoadReplicaStatus(const cvmfs::SystemPaths& paths,
                                               const std::string& name);

// The line of `cvmfs_server list` (no newline).
std::string ReplicaListLine(const ReplicaStatus& status);

// The text of `cvmfs_server info`, one "Key: value" per line.
std::string ReplicaInfoText(const ReplicaStatus& status);

}  // namespace replication

#endif  // SERVER_REPLICATION_REPLICA_STATUS_H_
