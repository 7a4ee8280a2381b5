// CacheHandle: an open object of a PosixCache (RAII).
//
// While a handle exists its object is never evicted (Evict() returns Busy,
// cleanups skip it). fd() is a read-only descriptor on the object's file;
// use pread() on it (several threads may share one handle's fd that way).
// Destroying (or Reset()ting) the handle closes the fd and releases the
// object. An empty handle (default-constructed or moved-from) is !valid().
//
// Lifetime: every handle must be destroyed before its PosixCache.
// Thread safety: one handle is used by one thread at a time, except for
// concurrent pread() on fd().
#ifndef CACHE_CACHE_HANDLE_H_
#define CACHE_CACHE_HANDLE_H_

#include <cstdint>

#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"

namespace cache {

class PosixCache;

class CacheHandle {
 public:
  CacheHandle() = default;
  ~CacheHandle() { Reset(); }
  CacheHandle(CacheHandle&& o) noexcept;
  CacheHandle& operator=(CacheHandle&& o) noexcept;
  CacheHandle(const CacheHandle&) = delete;
  CacheHandle& operator=(const CacheHandle&) = delete;

  bool valid() const { return owner_ != nullptr; }
  int fd() const { return fd_.get(); }
  uint64_t size() const { return size_; }
  const cvmfs::Digest& id() const { return id_; }

  // Closes the object now; the handle becomes empty.
  void Reset();

 private:
  friend class PosixCache;
  CacheHandle(PosixCache* owner, const cvmfs::Digest& id, cvmfs::UniqueFd fd,
              uint64_t size)
      : owner_(owner), id_(id), fd_(std::move(fd)), size_(size) {}

  PosixCache* owner_ = nullptr;  // borrowed; outlives the handle
  cvmfs::Digest id_;
  cvmfs::UniqueFd fd_;
  uint64_t size_ = 0;
};

}  // namespace cache

#endif  // CACHE_CACHE_HANDLE_H_
