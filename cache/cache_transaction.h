// CacheTransaction: an object being written into a PosixCache.
//
// Bytes go to a temporary file in txn/ (mode 0600); Commit() charges the
// object to the quota (which may evict others, or fail with NoSpace) and
// renames the file to XX/<rest>, so readers never see a partial object.
// There is no fsync: after a power cut cachedb and the files are reconciled
// at the next start-up. Destroying an uncommitted transaction deletes the
// temporary file. The cache stores the bytes as given: the caller writes
// the decompressed, verified content.
//
// A Write() that fails (disk full, object larger than half the quota limit)
// poisons the transaction: later calls and Commit() return the same error.
//
// Lifetime: must be destroyed before its PosixCache.
// Thread safety: one thread at a time.
#ifndef CACHE_CACHE_TRANSACTION_H_
#define CACHE_CACHE_TRANSACTION_H_

#include <cstddef>
#include <cstdint>
#include <string>

#include "cache/access.h"
#include "cache/cache_handle.h"
#include "cache/object_type.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

class PosixCache;

class CacheTransaction {
 public:
  ~CacheTransaction() { Abort(); }
  CacheTransaction(const CacheTransaction&) = delete;
  CacheTransaction& operator=(const CacheTransaction&) = delete;

  cvmfs::Status Write(const void* data, size_t size);
  // Publishes the object and returns it opened. The transaction is finished
  // afterwards, whatever the outcome.
  cvmfs::Result<CacheHandle> Commit();
  // Discards the bytes written so far (also done by the destructor).
  void Abort();

  const cvmfs::Digest& id() const { return id_; }
  uint64_t size() const { return size_; }

 private:
  friend class PosixCache;
  CacheTransaction(PosixCache* owner, const cvmfs::Digest& id, ObjectType type,
                   std::string description, std::string temp_path,
                   cvmfs::UniqueFd fd, uint64_t max_size, Access access);

  PosixCache* owner_;  // borrowed; outlives the transaction
  const cvmfs::Digest id_;
  const ObjectType type_;
  const std::string description_;
  std::string temp_path_;  // empty once renamed or removed
  cvmfs::UniqueFd fd_;
  const uint64_t max_size_;  // largest object the quota accepts
  const Access access_;
  uint64_t size_ = 0;
  cvmfs::Status error_;  // first Write() failure
  bool finished_ = false;
};

}  // namespace cache

#endif  // CACHE_CACHE_TRANSACTION_H_
