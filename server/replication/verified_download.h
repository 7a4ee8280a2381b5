// Downloads of content-addressed objects into a replica's storage, verified
// before they get their name. DownloadVerified streams into an object
// staged by a SnapshotDestination (snapshot_destination.h): a TxnFile in
// the storage directory itself, or one in a local staging directory that is
// uploaded to an object store (S3) on commit.
//
// A TxnFile streams a response body into a temporary file and hashes it on
// the way. CommitAs() gives it its object name; a TxnFile destroyed
// uncommitted removes its file. So an object name in the replica only ever
// holds bytes whose hash matched.
//
// Two kinds of temporary file:
//  - named, in the storage's data/txn/ (same file system as data/, so the
//    final rename is atomic; or in any directory, CreateNamed); an
//    interrupted snapshot leaves nothing but temporaries there (removed by
//    the next one);
//  - anonymous (O_TMPFILE) in the object's own directory, linked to its name
//    on commit: nothing is left behind by a crash, and the many small
//    objects of a snapshot do not all pass through one directory. Creating
//    and renaming in data/txn/ serialises the workers on that directory's
//    lock and on the file system's cross-directory rename lock; with
//    anonymous files each commit locks only one of the 256 data/XX/
//    directories. Used where the file system supports O_TMPFILE (ext4, xfs,
//    btrfs, tmpfs); elsewhere the named kind.
//
// Bytes are stored exactly as the source serves them (compressed objects
// stay compressed): the replica serves the same files as the Stratum 0.
//
// Thread safety: a TxnFile belongs to one download at a time (the fetcher
// may call it from its I/O thread). DownloadVerified is thread-safe.
#ifndef SERVER_REPLICATION_VERIFIED_DOWNLOAD_H_
#define SERVER_REPLICATION_VERIFIED_DOWNLOAD_H_

#include <cstdint>
#include <memory>
#include <string>

#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/status.h"
#include "server/replication/snapshot_destination.h"

namespace replication {

class TxnFile : public cvmfs::DownloadSink {
 public:
  // A new empty temporary file in <storage_root>/data/txn/.
  static cvmfs::Result<std::unique_ptr<TxnFile>> Create(
      const std::string& storage_root, cvmfs::HashAlgorithm algorithm);
  // A new empty named temporary file in `directory` (absolute).
  static cvmfs::Result<std::unique_ptr<TxnFile>> CreateNamed(
      const std::string& directory, cvmfs::HashAlgorithm algorithm);
  // An anonymous temporary file in `directory` (absolute), where it will be
  // committed; a named one as Create() if the file system cannot.
  static cvmfs::Result<std::unique_ptr<TxnFile>> CreateIn(
      const std::string& directory, const std::string& storage_root,
      cvmfs::HashAlgorithm algorithm);
  ~TxnFile() override;
  TxnFile(const TxnFile&) = delete;
  TxnFile& operator=(const TxnFile&) = delete;

  cvmfs::Status Write(const void* data, size_t size) override;
  void Reset() override;

  // The hash of everything written since the last Reset(); ends writing.
  cvmfs::Digest Finish();
  // Gives the file the name `final_path` (absolute): a rename, or a link of
  // an anonymous file (in the directory it was created in). An existing
  // `final_path` is kept for an anonymous file (objects are named by their
  // content). Afterwards the TxnFile owns nothing.
  cvmfs::Status CommitAs(const std::string& final_path);

  // A name that opens the file while the TxnFile lives (for an anonymous
  // file, /proc/self/fd/N).
  const std::string& path() const { return path_; }
  bool anonymous() const { return anonymous_; }
  uint64_t size() const { return size_; }

 private:
  TxnFile(std::string path, cvmfs::UniqueFd fd, cvmfs::HashAlgorithm algorithm,
          bool anonymous);

  std::string path_;
  cvmfs::UniqueFd fd_;
  cvmfs::HashAlgorithm algorithm_;
  std::unique_ptr<cvmfs::Hasher> hasher_;
  uint64_t size_ = 0;
  bool anonymous_;
  bool finished_ = false;
  bool committed_ = false;
};

// Downloads `name` (the same path at the source and in the replica) from
// `fetcher` into an object staged in `destination` and checks it against
// `expected` (hash of the bytes as served). A mismatch is retried once with
// no_cache (a proxy may hold a broken copy), then is Corruption naming the
// path and both hashes. The caller commits the object.
cvmfs::Result<std::unique_ptr<StagedObject>> DownloadVerified(
    cvmfs::Fetcher* fetcher, SnapshotDestination* destination,
    const std::string& name, const cvmfs::Digest& expected);

}  // namespace replication

#endif  // SERVER_REPLICATION_VERIFIED_DOWNLOAD_H_
