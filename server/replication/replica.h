// A Stratum 1 replica on this machine: creating one (add-replica) and
// running its snapshots one at a time.
//
//   etc/cvmfs/repositories.d/<name>/server.conf   replica_config.h
//   etc/cvmfs/keys/<fqrn>.pub (or the *.pub files of a key directory)
//   srv/cvmfs/<name>/                             storage: data/00..ff,
//   data/txn,
//                                                 .cvmfspublished, ... (served)
//   var/spool/cvmfs/<name>/is_snapshotting.lock   flock() while a snapshot runs
//   var/spool/cvmfs/<name>/tmp/                   scratch of running snapshots
//
// A replica on S3 (add-replica -s) has no storage directory: its files are
// the objects <prefix>/.cvmfspublished, <prefix>/data/ab/... of the bucket
// its S3 configuration file names, with the replica's name as <prefix>.
//
// Thread safety: free functions; SnapshotLock is a move-only RAII handle.
#ifndef SERVER_REPLICATION_REPLICA_H_
#define SERVER_REPLICATION_REPLICA_H_

#include <functional>
#include <memory>
#include <string>

#include "cvmfs/file_util.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/object_store.h"
#include "cvmfs/progress.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"
#include "server/replication/replica_config.h"
#include "server/replication/snapshot.h"

namespace replication {

struct AddReplicaOptions {
  std::string
      stratum0_url;  // e.g. http://stratum0.example.org/cvmfs/repo.example.org
  std::string public_key;  // a .pub file, or a directory of *.pub files
  std::string alias;       // -n: name of the replica; default the fqrn
  std::string owner = "root";
  bool garbage_collection = false;  // -z
  std::string snapshot_group;       // -g
  // -s: the S3 configuration file of a replica stored in S3, and -w: the
  // URL clients read that bucket at, without the replica's name (CVMFS
  // appends it, as mkfs -s does).
  std::string s3_config_file;
  std::string stratum1_url;
};

// The replica's storage: its directory, or its prefix in the S3 bucket.
cvmfs::Result<std::unique_ptr<cvmfs::ObjectStore>> OpenReplicaStore(
    const ReplicaConfig& config);

// Checks that the source allows replication and that its whitelist and
// manifest verify with the key(s), learns the fqrn from the whitelist, then
// copies the key(s) to etc/cvmfs/keys, creates the storage and spool and
// writes server.conf (last: until then the replica does not exist). On S3
// the bucket must answer (a replica's manifest already under the prefix is
// adopted as a local storage would be) and -w is required.
// `fetcher` talks to options.stratum0_url. AlreadyExists if the name is
// taken or a different key already has the target key file name.
cvmfs::Result<ReplicaConfig> AddReplica(const cvmfs::SystemPaths& paths,
                                        const AddReplicaOptions& options,
                                        cvmfs::Fetcher* fetcher);

// The fetcher a snapshot uses: libcurl towards CVMFS_STRATUM0, direct, with
// the replica's timeout and retries, one connection per worker.
cvmfs::Result<std::unique_ptr<cvmfs::Fetcher>> MakeSourceFetcher(
    const std::string& stratum0_url, int timeout_s, int retries,
    int connections);

// How a snapshot (or a replica's gc) meets a lock someone else holds, as
// CVMFS's acquire_update_lock: it waits, unless `abort_on_conflict`
// (`snapshot -t`) or the holder is the initial snapshot (the replica has no
// .cvmfs_last_snapshot yet), which are Busy at once.
struct LockPolicy {
  bool abort_on_conflict = false;
  std::function<void()> on_wait;  // called once before waiting, if at all
};

// An exclusive flock() on a file; released when destroyed.
class SnapshotLock {
 public:
  // Busy ("another snapshot of <name> is running") if someone holds it.
  static cvmfs::Result<SnapshotLock> Acquire(const std::string& lock_file,
                                             const std::string& name);
  // The lock of `config`'s replica (spool/is_snapshotting.lock) under
  // `policy`.
  static cvmfs::Result<SnapshotLock> AcquireForReplica(
      const ReplicaConfig& config, const LockPolicy& policy);

 private:
  explicit SnapshotLock(cvmfs::UniqueFd fd) : fd_(std::move(fd)) {}
  cvmfs::UniqueFd fd_;
};

// Takes the replica's lock, removes temporaries left in data/txn (and the
// spool's tmp/) by an interrupted snapshot and runs one snapshot
// (snapshot.h) into the replica's storage, local or S3.
cvmfs::Result<SnapshotStats> SnapshotReplica(
    const ReplicaConfig& config, cvmfs::Fetcher* fetcher,
    const LockPolicy& lock = {}, cvmfs::ProgressCounters* progress = nullptr);

}  // namespace replication

#endif  // SERVER_REPLICATION_REPLICA_H_
