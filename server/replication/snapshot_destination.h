// SnapshotDestination: the storage a snapshot writes a replica into
// (snapshot.h), a local directory or an object store such as an S3 bucket.
//
//   LocalDestination  /srv/cvmfs/<name>: a download streams into an
//                     anonymous file in its object's own data/XX/ directory
//                     and is linked to its name on commit; a file that
//                     changes (.cvmfsreflog) goes through data/txn/ and a
//                     rename (verified_download.h, TxnFile). No copy and no
//                     second pass over the bytes.
//   StoreDestination  any ObjectStore (S3ObjectStore for add-replica -s): a
//                     download streams into a file in a local staging
//                     directory and is uploaded by a Put of that file
//                     (mapped, not read into memory) on commit.
//
// Either way a name gets its bytes only after they were verified, and the
// caller decides the order of the commits (objects before the catalogs
// that reference them, the manifest last).
//
// Thread safety: store() and Stage() may be called from any thread; a
// StagedObject belongs to one download at a time.
#ifndef SERVER_REPLICATION_SNAPSHOT_DESTINATION_H_
#define SERVER_REPLICATION_SNAPSHOT_DESTINATION_H_

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_set>

#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"

namespace replication {

// Bytes on their way to one name of the destination.
class StagedObject : public cvmfs::DownloadSink {
 public:
  // The hash of everything written since the last Reset(); ends writing.
  virtual cvmfs::Digest Finish() = 0;
  // A local file name that reads the bytes while the object lives.
  virtual const std::string& path() const = 0;
  virtual uint64_t size() const = 0;
  // Gives the bytes their name in the destination (after Finish). A data/
  // name stands for its content: committing onto an existing object
  // changes nothing. Destroyed uncommitted, a staged object leaves nothing
  // behind.
  virtual cvmfs::Status Commit() = 0;
};

class SnapshotDestination {
 public:
  virtual ~SnapshotDestination() = default;
  // Whether the object `name` ("data/...") is there already.
  virtual bool Has(const std::string& name) = 0;
  // The destination as an ObjectStore: Get, and Put of the small files
  // (whitelist, manifest, last snapshot).
  virtual cvmfs::ObjectStore* store() = 0;
  // An empty staged object for `name` ("data/ab/cd...", ".cvmfsreflog"),
  // hashed with `algorithm`.
  virtual cvmfs::Result<std::unique_ptr<StagedObject>> Stage(
      const std::string& name, cvmfs::HashAlgorithm algorithm) = 0;
};

class LocalDestination : public SnapshotDestination {
 public:
  // `storage_root` has data/00..ff and data/txn.
  explicit LocalDestination(std::string storage_root);
  bool Has(const std::string& name) override { return store_.Exists(name); }
  cvmfs::ObjectStore* store() override { return &store_; }
  cvmfs::Result<std::unique_ptr<StagedObject>> Stage(
      const std::string& name, cvmfs::HashAlgorithm algorithm) override;

 private:
  const std::string root_;
  cvmfs::LocalObjectStore store_;
};

class StoreDestination : public SnapshotDestination {
 public:
  // `store` is borrowed and must outlive the destination; `staging_dir` is
  // an existing local directory private to the snapshot.
  StoreDestination(cvmfs::ObjectStore* store, std::string staging_dir);
  // Lists the store's data/ objects once; from then on Has() answers from
  // that list and from what this destination uploaded, instead of asking
  // the store (a HEAD on S3) for each object. For a store expected to hold
  // few of the objects: a first snapshot, or one resuming a first snapshot.
  cvmfs::Status ListExisting();

  bool Has(const std::string& name) override;
  cvmfs::ObjectStore* store() override { return store_; }
  cvmfs::Result<std::unique_ptr<StagedObject>> Stage(
      const std::string& name, cvmfs::HashAlgorithm algorithm) override;

 private:
  class Upload;  // the StagedObject; records its name here when committed
  void Uploaded(const std::string& name);

  cvmfs::ObjectStore* const store_;  // not owned
  const std::string staging_dir_;
  cvmfs::Mutex mu_;  // guards listed_, known_; leaf lock
  bool listed_ GUARDED_BY(mu_) = false;
  std::unordered_set<std::string> known_ GUARDED_BY(mu_);
};

}  // namespace replication

#endif  // SERVER_REPLICATION_SNAPSHOT_DESTINATION_H_
