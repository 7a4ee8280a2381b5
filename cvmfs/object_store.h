// ObjectStore: where a repository's files live (the Stratum 0 storage root).
//
// Names are paths relative to the repository root ("data/ab/cd...C",
// ".cvmfspublished"); object_name.h makes them. Put is atomic: readers see
// the old file or the complete new one, never a partial write (local storage
// writes into data/txn/ and renames). Implementations are thread-safe.
#ifndef CVMFS_OBJECT_STORE_H_
#define CVMFS_OBJECT_STORE_H_

#include <fcntl.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/object_name.h"
#include "cvmfs/status.h"

namespace cvmfs {

class ObjectStore {
 public:
  // Receives an object's bytes in pieces; a non-ok status stops the read.
  using Sink = std::function<Status(const char* data, size_t size)>;

  virtual ~ObjectStore() = default;
  virtual bool Exists(const std::string& name) = 0;
  virtual Status Put(const std::string& name, std::string_view bytes) = 0;
  // Stores `bytes` as `name` unless an object of that name exists (a name
  // under data/ stands for its bytes): true if written, false if it was
  // there. This default asks Exists first; a store may learn it from the
  // write itself.
  virtual Result<bool> PutIfAbsent(const std::string& name,
                                   std::string_view bytes);
  virtual Result<std::string> Get(const std::string& name) = 0;
  // Hands the bytes of `name` to `sink` in pieces (NotFound if missing), so
  // that an object of any size is read in bounded memory where the store
  // can; this default reads it whole with Get.
  virtual Status ReadTo(const std::string& name, const Sink& sink);
  // Stores the bytes of the local file `file` as `name`, as atomically as
  // Put. The file is consumed: moved into the store or left for the caller
  // to remove. This default reads it whole and calls Put.
  virtual Status PutFile(const std::string& name, const std::string& file);
  // Bytes of the object `name` (NotFound if missing); this default reads it.
  virtual Result<uint64_t> Size(const std::string& name);
  // The bytes of `name` if it holds at most `max_bytes`, else nullopt
  // (NotFound if missing): a small object read in one go. This default asks
  // Size first.
  virtual Result<std::optional<std::string>> GetAtMost(const std::string& name,
                                                       uint64_t max_bytes);
  virtual Status Remove(const std::string& name) = 0;
  // Names of all objects under data/ (for gc, check and tests).
  virtual Result<std::vector<std::string>> ListObjects() = 0;
};

// Files under a directory, e.g. /srv/cvmfs/<fqrn>.
class LocalObjectStore : public ObjectStore {
 public:
  explicit LocalObjectStore(std::string root);
  // Creates data/00..ff and data/txn (and the root); before the store is
  // shared between threads.
  Status CreateLayout();
  const std::string& root() const { return root_; }

  bool Exists(const std::string& name) override;
  Status Put(const std::string& name, std::string_view bytes) override;
  // Without a lookup first: the link of the new file fails if the name
  // exists.
  Result<bool> PutIfAbsent(const std::string& name,
                           std::string_view bytes) override;
  Result<std::string> Get(const std::string& name) override;
  Status ReadTo(const std::string& name, const Sink& sink) override;
  // Renames `file` into place (copies it through data/txn when it is on
  // another filesystem).
  Status PutFile(const std::string& name, const std::string& file) override;
  Result<uint64_t> Size(const std::string& name) override;  // stat, no read
  // One open, fstat and read.
  Result<std::optional<std::string>> GetAtMost(const std::string& name,
                                               uint64_t max_bytes) override;
  Status Remove(const std::string& name) override;
  Result<std::vector<std::string>> ListObjects() override;

 private:
  // Writes through data/txn and renames into place.
  Status PutThroughTxn(const std::string& final_path, std::string_view bytes);
  // The directory to resolve `name` from and the path to give with it: the
  // root's descriptor and `name` where it was opened (the kernel then walks
  // "data/ab/cd..." instead of the whole path, for every object of a
  // publish), else AT_FDCWD and the full path.
  int DirFd() const { return root_fd_.valid() ? root_fd_.get() : AT_FDCWD; }
  std::string At(const std::string& name) const {
    return root_fd_.valid() ? name : root_ + "/" + name;
  }
  // A descriptor of `name` to read, or -1 (errno set).
  int OpenForReading(const std::string& name) const;

  std::string root_;
  UniqueFd root_fd_;  // O_PATH; invalid until the root exists
  // The process's umask leaves 0644 of a new file's 0644: no chmod.
  bool umask_keeps_mode_ = false;
};

// In-memory store for unit tests.
class MemoryObjectStore : public ObjectStore {
 public:
  bool Exists(const std::string& name) override;
  Status Put(const std::string& name, std::string_view bytes) override;
  Result<std::string> Get(const std::string& name) override;
  Status Remove(const std::string& name) override;
  Result<std::vector<std::string>> ListObjects() override;
  size_t puts() const;

 private:
  mutable Mutex mu_;  // guards files_, puts_; leaf lock
  std::map<std::string, std::string> files_ GUARDED_BY(mu_);
  size_t puts_ GUARDED_BY(mu_) = 0;
};

// Reads object `digest` with `suffix`, checks the stored bytes against the
// digest (Corruption if they differ) and, when `compressed`, inflates them.
// The one way the format code reads an object by hash.
Result<std::string> ReadVerifiedObject(ObjectStore* store, const Digest& digest,
                                       ObjectSuffix suffix,
                                       bool compressed = true);

// How StoreObject encodes an object.
struct StoreObjectOptions {
  HashAlgorithm hash = HashAlgorithm::kSha1;
  Compression compression = Compression::kZlib;
  // A worker's own compressor (libdeflate), reused from object to object;
  // without one, zlib compresses. Both write zlib streams, but not the same
  // bytes, so the object names of a caller depend on its choice. Borrowed
  // for the call, as is `scratch`, which then holds the compressed bytes.
  Compressor* compressor = nullptr;
  std::string* scratch = nullptr;
};

// What StoreObject did.
struct StoredObject {
  Digest digest;           // of the bytes as stored
  size_t stored_size = 0;  // bytes as stored (compressed)
  bool existed = false;    // the store had the object; nothing was written
};

// The one way the format code writes an object by hash: compresses
// `content` (unless Compression::kNone), hashes the bytes to store and puts
// them at ObjectPath(digest, suffix) unless that object exists (a name
// stands for its bytes). A failed Put is annotated "storing <name>".
Result<StoredObject> StoreObject(ObjectStore* store, std::string_view content,
                                 ObjectSuffix suffix,
                                 const StoreObjectOptions& options);
// zlib-compressed, hashed with `hash`; returns the digest.
Result<Digest> StoreObject(ObjectStore* store, std::string_view content,
                           ObjectSuffix suffix, HashAlgorithm hash);

}  // namespace cvmfs

#endif  // CVMFS_OBJECT_STORE_H_
