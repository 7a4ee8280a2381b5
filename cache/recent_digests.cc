#include "cache/recent_digests.h"

namespace cache {

void RecentDigests::Add(const cvmfs::Digest& id) {
  const uint64_t key = cvmfs::DigestHasher{}(id);
  cvmfs::MutexLock lock(&mu_);
  if (capacity_ == 0 || !set_.insert(key).second) return;
  order_.push_back(key);
  if (order_.size() > capacity_) {
    set_.erase(order_.front());
    order_.pop_front();
  }
}

bool RecentDigests::Contains(const cvmfs::Digest& id) const {
  const uint64_t key = cvmfs::DigestHasher{}(id);
  cvmfs::MutexLock lock(&mu_);
  return set_.count(key) > 0;
}

}  // namespace cache
