#include "cache/lru_quota.h"

#include <cassert>
#include <utility>

namespace cache {

using cvmfs::Digest;
using cvmfs::Status;

namespace {

std::string Bytes(uint64_t n) { return std::to_string(n) + " bytes"; }

}  // namespace

const LruQuota::Entry* LruQuota::Find(const Digest& id) const {
  auto it = entries_.find(id);
  return it == entries_.end() ? nullptr : &it->second;
}

int64_t LruQuota::NextSeq(int64_t volatile_bit) {
  return next_seq_++ | volatile_bit;
}

void LruQuota::Account(const Entry& e, bool was_pinned, bool was_locked) {
  bool pinned = e.pins > 0;
  if (pinned != was_pinned) {
    if (pinned)
      pinned_bytes_ += e.size;
    else
      pinned_bytes_ -= e.size;
  }
  if (e.locked() != was_locked) {
    if (e.locked())
      locked_bytes_ += e.size;
    else
      locked_bytes_ -= e.size;
  }
}

void LruQuota::Erase(Map::iterator it) {
  // Callers erase only unlocked entries, so the pinned and locked byte
  // counts do not change.
  assert(!it->second.locked());
  size_ -= it->second.size;
  lru_.erase(it->second.acseq);
  entries_.erase(it);
}

Status LruQuota::Restore(const Digest& id, uint64_t size, int64_t acseq,
                         ObjectType type, std::string description) {
  if (entries_.count(id) != 0)
    return Status::AlreadyExists("duplicate cache entry " + id.ToString());
  if (lru_.count(acseq) != 0)
    return Status::AlreadyExists("duplicate access sequence " +
                                 std::to_string(acseq) + " for " +
                                 id.ToString());
  Entry e;
  e.size = size;
  e.acseq = acseq;
  e.type = type;
  e.description = std::move(description);
  entries_.emplace(id, std::move(e));
  lru_.emplace(acseq, id);
  size_ += size;
  int64_t plain = acseq & ~kVolatileFlag;
  if (plain >= next_seq_) next_seq_ = plain + 1;
  return Status::Ok();
}

Status LruQuota::Insert(const Digest& id, uint64_t size, ObjectType type,
                        std::string description, std::vector<Digest>* evicted,
                        Access access) {
  if (entries_.count(id) != 0)
    return Status::AlreadyExists(id.ToString() + " is already in the cache");
  if (!unlimited()) {
    if (size > max_object_size()) {
      return Status::NoSpace(id.ToString() + " (" + Bytes(size) +
                             ") is larger than the largest cacheable object (" +
                             Bytes(max_object_size()) +
                             ", half the quota limit)");
    }
    if (size_ + size > limit_) {
      // After evicting every unlocked object, locked_bytes_ remain.
      if (locked_bytes_ + size > limit_) {
        return Status::NoSpace(
            "cannot fit " + id.ToString() + " (" + Bytes(size) +
            ") into the cache: " + Bytes(locked_bytes_) +
            " are pinned or open (limit " + Bytes(limit_) + ")");
      }
      std::vector<Digest> gone = Cleanup(threshold());
      evicted->insert(evicted->end(), gone.begin(), gone.end());
    }
  }
  Entry e;
  e.size = size;
  e.acseq = NextSeq(access == Access::kSpeculative ? kVolatileFlag : 0);
  e.type = type;
  e.description = std::move(description);
  lru_.emplace(e.acseq, id);
  entries_.emplace(id, std::move(e));
  size_ += size;
  return Status::Ok();
}

Status LruQuota::Touch(const Digest& id) {
  auto it = entries_.find(id);
  if (it == entries_.end())
    return Status::NotFound(id.ToString() + " is not in the cache");
  Entry& e = it->second;
  lru_.erase(e.acseq);
  e.acseq = NextSeq(e.acseq & kVolatileFlag);
  lru_.emplace(e.acseq, id);
  return Status::Ok();
}

Status LruQuota::Pin(const Digest& id) {
  auto it = entries_.find(id);
  if (it == entries_.end())
    return Status::NotFound("cannot pin " + id.ToString() +
                            ": not in the cache");
  Entry& e = it->second;
  if (e.pins == 0 && !unlimited() && pinned_bytes_ + e.size > threshold()) {
    return Status::NoSpace(
        "cannot pin " + id.ToString() + " (" + Bytes(e.size) +
        "): " + Bytes(pinned_bytes_) + " are pinned already, at most " +
        Bytes(threshold()) + " (half the quota limit) may be");
  }
  bool was_pinned = e.pins > 0, was_locked = e.locked();
  ++e.pins;
  Account(e, was_pinned, was_locked);
  return Status::Ok();
}

Status LruQuota::Unpin(const Digest& id) {
  auto it = entries_.find(id);
  if (it == entries_.end())
    return Status::NotFound("cannot unpin " + id.ToString() +
                            ": not in the cache");
  Entry& e = it->second;
  if (e.pins == 0)
    return Status::InvalidArgument("cannot unpin " + id.ToString() +
                                   ": not pinned");
  bool was_locked = e.locked();
  --e.pins;
  Account(e, true, was_locked);
  return Status::Ok();
}

Status LruQuota::Open(const Digest& id, Access access) {
  auto it = entries_.find(id);
  if (it == entries_.end())
    return Status::NotFound(id.ToString() + " is not in the cache");
  Entry& e = it->second;
  bool was_locked = e.locked();
  ++e.opens;
  Account(e, e.pins > 0, was_locked);
  if (access == Access::kUse) {
    lru_.erase(e.acseq);
    e.acseq = NextSeq(0);
    lru_.emplace(e.acseq, id);
  }
  return Status::Ok();
}

Status LruQuota::Close(const Digest& id) {
  auto it = entries_.find(id);
  if (it == entries_.end())
    return Status::NotFound("cannot close " + id.ToString() +
                            ": not in the cache");
  Entry& e = it->second;
  if (e.opens == 0)
    return Status::InvalidArgument("cannot close " + id.ToString() +
                                   ": not open");
  bool was_locked = e.locked();
  --e.opens;
  Account(e, e.pins > 0, was_locked);
  return Status::Ok();
}

Status LruQuota::Remove(const Digest& id) {
  auto it = entries_.find(id);
  if (it == entries_.end())
    return Status::NotFound(id.ToString() + " is not in the cache");
  const Entry& e = it->second;
  if (e.locked()) {
    return Status::Busy(id.ToString() + " is in use (pinned " +
                        std::to_string(e.pins) + "x, open " +
                        std::to_string(e.opens) + "x)");
  }
  Erase(it);
  return Status::Ok();
}

std::vector<Digest> LruQuota::Cleanup(uint64_t target) {
  std::vector<Digest> evicted;
  auto pos = lru_.begin();
  while (size_ > target && pos != lru_.end()) {
    auto it = entries_.find(pos->second);
    ++pos;
    if (it->second.locked()) continue;
    evicted.push_back(it->first);
    Erase(it);  // invalidates only the erased lru_ node, not `pos`
    ++evictions_;
  }
  return evicted;
}

void LruQuota::SetLimit(uint64_t limit, std::vector<Digest>* evicted) {
  limit_ = limit;
  if (!unlimited() && size_ > limit_) {
    std::vector<Digest> gone = Cleanup(threshold());
    evicted->insert(evicted->end(), gone.begin(), gone.end());
  }
}

std::vector<std::pair<Digest, const LruQuota::Entry*>> LruQuota::InLruOrder()
    const {
  std::vector<std::pair<Digest, const Entry*>> out;
  out.reserve(lru_.size());
  for (const auto& [seq, id] : lru_) out.emplace_back(id, &entries_.at(id));
  return out;
}

}  // namespace cache
