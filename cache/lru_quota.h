// LruQuota: the cache's space policy, as pure bookkeeping (no file I/O).
//
// Objects are charged by size and ordered by an access sequence number
// (acseq, the LRU clock of CVMFS's cachedb). The policy is CVMFS's:
//
//   * Cleanup threshold = limit / 2. An insert that would take the cache
//     above the limit first evicts least recently used objects until the
//     cache holds at most the threshold (cleanup bursts halve the cache).
//   * An object is "locked" while it is pinned (a catalog loaded by a mount)
//     or open (a CacheHandle exists). Locked objects are never evicted.
//   * Pin() of an unpinned object fails with NoSpace if the pinned bytes
//     would exceed the threshold, so pinned data never crowds out the rest.
//   * The largest cacheable object is limit - threshold: after a cleanup it
//     always fits.
//   * Insert() either succeeds (possibly after a cleanup) or fails with
//     NoSpace and changes nothing: it fails exactly when even evicting every
//     unlocked object would leave no room. Never a hang, never an eviction of
//     locked data.
//   * With limit == kUnlimited (CVMFS_QUOTA_LIMIT=-1) nothing is evicted by
//     Insert() and Pin() never fails.
//
// Invariants (checked by lru_quota_test.cc against a model):
//   size() == sum of entry sizes; pinned() == sum of sizes with pins > 0;
//   after a successful Insert() size() <= limit(); acseq values are unique.
//
// An acseq with bit 63 set is "volatile" (CVMFS's InsertVolatile): as a
// signed number it sorts before all others and so is evicted first. Our
// client stores prefetched objects so (Access::kSpeculative, access.h);
// Touch() keeps the bit, an Open() for use clears it: volatile means "never
// used yet". Entries restored from cachedb keep it.
//
// Thread safety: none; the owner (PosixCache) serializes calls.
#ifndef CACHE_LRU_QUOTA_H_
#define CACHE_LRU_QUOTA_H_

#include <cstdint>
#include <limits>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/access.h"
#include "cache/object_type.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

class LruQuota {
 public:
  static constexpr uint64_t kUnlimited = std::numeric_limits<uint64_t>::max();
  static constexpr int64_t kVolatileFlag = std::numeric_limits<int64_t>::min();

  struct Entry {
    uint64_t size = 0;
    int64_t acseq = 0;
    ObjectType type = ObjectType::kRegular;
    std::string description;  // repository path, for `cvmfs_talk cache list`
    uint32_t pins = 0;        // Pin() calls not yet matched by Unpin()
    uint32_t opens = 0;       // open CacheHandles
    bool locked() const { return pins > 0 || opens > 0; }
  };

  explicit LruQuota(uint64_t limit = kUnlimited) : limit_(limit) {}

  uint64_t limit() const { return limit_; }
  bool unlimited() const { return limit_ == kUnlimited; }
  // Cleanup target: limit / 2 (kUnlimited when unlimited).
  uint64_t threshold() const { return unlimited() ? kUnlimited : limit_ / 2; }
  // The largest object Insert() accepts.
  uint64_t max_object_size() const {
    return unlimited() ? kUnlimited : limit_ - threshold();
  }
  uint64_t size() const { return size_; }
  uint64_t pinned() const { return pinned_bytes_; }
  uint64_t evictions() const { return evictions_; }
  size_t count() const { return entries_.size(); }

  // Null if absent. Valid until the next non-const call.
  const Entry* Find(const cvmfs::Digest& id) const;

  // Re-adds an entry as persisted (keeps its acseq, pins/opens ignored),
  // without any space check: used when loading cachedb. Call Cleanup()
  // afterwards if the loaded size may exceed the limit.
  // AlreadyExists for a duplicate id or acseq.
  cvmfs::Status Restore(const cvmfs::Digest& id, uint64_t size, int64_t acseq,
                        ObjectType type, std::string description);

  // Adds a new object as the most recently used one (kSpeculative: as the
  // most recent volatile one), evicting as described above; evicted ids are
  // appended to `evicted` (oldest first).
  // AlreadyExists if present, NoSpace if it cannot fit.
  cvmfs::Status Insert(const cvmfs::Digest& id, uint64_t size, ObjectType type,
                       std::string description,
                       std::vector<cvmfs::Digest>* evicted,
                       Access access = Access::kUse);

  // Marks the object most recently used. NotFound if absent.
  cvmfs::Status Touch(const cvmfs::Digest& id);

  // Pins are counted: the object stays pinned until every Pin() is matched
  // by an Unpin(). Only the first Pin() is charged against the threshold.
  cvmfs::Status Pin(const cvmfs::Digest& id);    // NotFound, NoSpace
  cvmfs::Status Unpin(const cvmfs::Digest& id);  // NotFound, InvalidArgument

  // Opens are counted like pins. An open for use also makes the object the
  // most recently used one and clears its volatile bit; a speculative open
  // leaves its place in the order alone.
  cvmfs::Status Open(const cvmfs::Digest& id,
                     Access access = Access::kUse);  // NotFound
  cvmfs::Status Close(const cvmfs::Digest& id);  // NotFound, InvalidArgument

  // Drops an unlocked object. NotFound if absent, Busy if locked.
  cvmfs::Status Remove(const cvmfs::Digest& id);

  // Evicts least recently used unlocked objects until size() <= target or
  // nothing evictable is left; returns the evicted ids, oldest first.
  std::vector<cvmfs::Digest> Cleanup(uint64_t target);

  // Changes the limit; if the cache is now above it, cleans up to the new
  // threshold (evicted ids appended to `evicted`).
  void SetLimit(uint64_t limit, std::vector<cvmfs::Digest>* evicted);

  // Every object, least recently used first.
  std::vector<std::pair<cvmfs::Digest, const Entry*>> InLruOrder() const;

 private:
  using Map = std::unordered_map<cvmfs::Digest, Entry, cvmfs::DigestHasher>;

  int64_t NextSeq(int64_t volatile_bit);
  // Keeps pinned_bytes_/locked_bytes_ in step when an entry's pins or opens
  // change; `was_pinned`/`was_locked` describe the state before the change.
  void Account(const Entry& e, bool was_pinned, bool was_locked);
  void Erase(Map::iterator it);

  uint64_t limit_;
  uint64_t size_ = 0;
  uint64_t pinned_bytes_ = 0;  // bytes of entries with pins > 0
  uint64_t locked_bytes_ = 0;  // bytes of entries that are pinned or open
  uint64_t evictions_ = 0;     // objects removed by Cleanup()
  int64_t next_seq_ = 0;       // without the volatile bit
  Map entries_;
  std::map<int64_t, cvmfs::Digest> lru_;  // acseq -> id; begin() is oldest
};

}  // namespace cache

#endif  // CACHE_LRU_QUOTA_H_
