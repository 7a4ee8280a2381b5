// RecentDigests: the last `capacity` objects a cache stored, in a bounded
// set (8 bytes of digest hash each; a collision only costs a skipped
// read-ahead). What a process wrote a moment ago is in the page cache
// still, so reading it ahead from the disk (PosixCache::ReadAhead) would
// cost an open, a stat, a fadvise and a close for nothing: in a cold tar
// of the Linux tree, the prefetcher asked that for four in five files,
// each stored a moment before by its directory's bundle.
//
// Thread safety: all methods are thread-safe.
#ifndef CACHE_RECENT_DIGESTS_H_
#define CACHE_RECENT_DIGESTS_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <unordered_set>

#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"

namespace cache {

class RecentDigests {
 public:
  explicit RecentDigests(size_t capacity) : capacity_(capacity) {}
  void Add(const cvmfs::Digest& id) EXCLUDES(mu_);
  bool Contains(const cvmfs::Digest& id) const EXCLUDES(mu_);

 private:
  const size_t capacity_;
  mutable cvmfs::Mutex mu_;  // guards the members below; leaf lock
  std::unordered_set<uint64_t> set_ GUARDED_BY(mu_);
  std::deque<uint64_t> order_ GUARDED_BY(mu_);  // oldest first
};

}  // namespace cache

#endif  // CACHE_RECENT_DIGESTS_H_
