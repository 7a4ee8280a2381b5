#include "cvmfs/network/buffer_pool.h"

#include <utility>

namespace cvmfs {

std::string BufferPool::Take() {
  {
    MutexLock lock(&mu_);
    if (!idle_.empty()) {
      std::string buffer = std::move(idle_.back());
      idle_.pop_back();
      return buffer;
    }
  }
  std::string buffer;
  buffer.reserve(capacity_);
  return buffer;
}

void BufferPool::Give(std::string buffer) {
  if (buffer.capacity() < capacity_ || buffer.capacity() > 2 * capacity_)
    return;
  buffer.clear();
  MutexLock lock(&mu_);
  if (idle_.size() < max_idle_) idle_.push_back(std::move(buffer));
}

size_t BufferPool::idle() const {
  MutexLock lock(&mu_);
  return idle_.size();
}

}  // namespace cvmfs
