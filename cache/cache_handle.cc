#include "cache/cache_handle.h"

#include <utility>

#include "cache/posix_cache.h"

namespace cache {

CacheHandle::CacheHandle(CacheHandle&& o) noexcept
    : owner_(std::exchange(o.owner_, nullptr)),
      id_(o.id_),
      fd_(std::move(o.fd_)),
      size_(o.size_) {}

CacheHandle& CacheHandle::operator=(CacheHandle&& o) noexcept {
  if (this != &o) {
    Reset();
    owner_ = std::exchange(o.owner_, nullptr);
    id_ = o.id_;
    fd_ = std::move(o.fd_);
    size_ = o.size_;
  }
  return *this;
}

void CacheHandle::Reset() {
  fd_.Reset();
  if (owner_ != nullptr) std::exchange(owner_, nullptr)->ReleaseHandle(id_);
}

}  // namespace cache
