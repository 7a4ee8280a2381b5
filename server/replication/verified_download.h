// Downloads of content-addressed objects into a replica's storage, verified
// before they get their name.
//
// A TxnFile streams a response body into a temporary file in the storage's
// data/txn/ (same file system as data/, so the final rename is atomic) and
// hashes it on the way. CommitAs() renames it to its object name; a TxnFile
// destroyed uncommitted removes its file. So an object name in the replica
// only ever holds bytes whose hash matched, and an interrupted snapshot
// leaves nothing but temporaries in data/txn/ (removed by the next one).
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

namespace replication {

class TxnFile : public cvmfs::DownloadSink {
 public:
  // A new empty temporary file in <storage_root>/data/txn/.
  static cvmfs::Result<std::unique_ptr<TxnFile>> Create(
      const std::string& storage_root, cvmfs::HashAlgorithm algorithm);
  ~TxnFile() override;
  TxnFile(const TxnFile&) = delete;
  TxnFile& operator=(const TxnFile&) = delete;

  cvmfs::Status Write(const void* data, size_t size) override;
  void Reset() override;

  // The hash of everything written since the last Reset(); ends writing.
  cvmfs::Digest Finish();
  // Renames the file to `final_path` (absolute). Afterwards the TxnFile
  // owns nothing.
  cvmfs::Status CommitAs(const std::string& final_path);

  const std::string& path() const { return path_; }
  uint64_t size() const { return size_; }

 private:
  TxnFile(std::string path, cvmfs::UniqueFd fd, cvmfs::HashAlgorithm algorithm);

  std::string path_;
  cvmfs::UniqueFd fd_;
  cvmfs::HashAlgorithm algorithm_;
  std::unique_ptr<cvmfs::Hasher> hasher_;
  uint64_t size_ = 0;
  bool committed_ = false;
};

// Downloads `url_path` from `fetcher` into a TxnFile under `storage_root`
// and checks it against `expected` (hash of the bytes as served). A mismatch
// is retried once with no_cache (a proxy may hold a broken copy), then is
// Corruption naming the path and both hashes. The caller commits the file.
cvmfs::Result<std::unique_ptr<TxnFile>> DownloadVerified(
    cvmfs::Fetcher* fetcher, const std::string& storage_root,
    const std::string& url_path, const cvmfs::Digest& expected);

}  // namespace replication

#endif  // SERVER_REPLICATION_VERIFIED_DOWNLOAD_H_
