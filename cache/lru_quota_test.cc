#include "cache/lru_quota.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <random>
#include <set>

namespace cache {
namespace {

using cvmfs::Digest;
using cvmfs::HashAlgorithm;
using Code = cvmfs::Status::Code;

Digest Id(int n) {
  return cvmfs::HashString(HashAlgorithm::kSha1, "object " + std::to_string(n));
}

std::vector<Digest> Insert(LruQuota* q, int n, uint64_t size,
                           Code expect = Code::kOk) {
  std::vector<Digest> evicted;
  EXPECT_EQ(q->Insert(Id(n), size, ObjectType::kRegular,
                      "/f" + std::to_string(n), &evicted)
                .code(),
            expect);
  return evicted;
}

TEST(LruQuotaTest, EvictsLeastRecentlyUsedDownToHalfTheLimit) {
  LruQuota q(100);
  for (int i = 0; i < 5; ++i) Insert(&q, i, 20);  // 100 bytes: full
  ASSERT_TRUE(q.Touch(Id(0)).ok());               // order now 1 2 3 4 0
  std::vector<Digest> evicted = Insert(&q, 5, 10);
  // Cleanup runs to the threshold (50): 1, 2, 3 go, leaving 4 and 0.
  EXPECT_EQ(evicted, (std::vector<Digest>{Id(1), Id(2), Id(3)}));
  EXPECT_EQ(q.size(), 50u);
  EXPECT_NE(q.Find(Id(0)), nullptr);
  EXPECT_EQ(q.evictions(), 3u);
}

TEST(LruQuotaTest, NoCleanupWhileBelowTheLimit) {
  LruQuota q(100);
  for (int i = 0; i < 4; ++i) Insert(&q, i, 25);
  EXPECT_TRUE(Insert(&q, 9, 0).empty());
  EXPECT_EQ(q.size(), 100u);
}

TEST(LruQuotaTest, RejectsObjectsLargerThanHalfTheLimit) {
  LruQuota q(100);
  Insert(&q, 0, 51, Code::kNoSpace);
  Insert(&q, 0, 50);
  EXPECT_EQ(q.count(), 1u);
}

TEST(LruQuotaTest, PinnedAndOpenObjectsAreNeverEvicted) {
  LruQuota q(100);
  for (int i = 0; i < 4; ++i) Insert(&q, i, 25);
  ASSERT_TRUE(q.Pin(Id(0)).ok());
  ASSERT_TRUE(q.Open(Id(1)).ok());  // also touches: order 2 3 1 (0 pinned)
  std::vector<Digest> evicted = Insert(&q, 4, 20);
  EXPECT_EQ(evicted, (std::vector<Digest>{Id(2), Id(3)}));
  EXPECT_EQ(q.Remove(Id(0)).code(), Code::kBusy);
  EXPECT_EQ(q.Remove(Id(1)).code(), Code::kBusy);
  ASSERT_TRUE(q.Close(Id(1)).ok());
  EXPECT_TRUE(q.Remove(Id(1)).ok());
}

TEST(LruQuotaTest, PinningBeyondHalfTheLimitFails) {
  LruQuota q(100);
  Insert(&q, 0, 30);
  Insert(&q, 1, 30);
  ASSERT_TRUE(q.Pin(Id(0)).ok());
  EXPECT_EQ(q.Pin(Id(1)).code(), Code::kNoSpace);
  ASSERT_TRUE(q.Pin(Id(0)).ok());  // counted, not charged again
  EXPECT_EQ(q.pinned(), 30u);
  ASSERT_TRUE(q.Unpin(Id(0)).ok());
  EXPECT_EQ(q.pinned(), 30u);
  ASSERT_TRUE(q.Unpin(Id(0)).ok());
  EXPECT_EQ(q.pinned(), 0u);
  EXPECT_EQ(q.Unpin(Id(0)).code(), Code::kInvalidArgument);
  EXPECT_TRUE(q.Pin(Id(1)).ok());
}

TEST(LruQuotaTest, InsertFailsWithoutEvictingWhenLockedDataFillsTheCache) {
  LruQuota q(100);
  Insert(&q, 0, 50);
  Insert(&q, 1, 40);
  Insert(&q, 2, 10);
  ASSERT_TRUE(q.Pin(Id(0)).ok());
  ASSERT_TRUE(q.Open(Id(1)).ok());
  // 90 locked bytes: 20 more cannot fit even after evicting object 2.
  EXPECT_TRUE(Insert(&q, 3, 20, Code::kNoSpace).empty());
  EXPECT_NE(q.Find(Id(2)), nullptr);
  // 10 more fit after evicting object 2 (cleanup cannot reach 50).
  EXPECT_EQ(Insert(&q, 3, 10), std::vector<Digest>{Id(2)});
  EXPECT_EQ(q.size(), 100u);
}

TEST(LruQuotaTest, CleanupStopsAtLockedData) {
  LruQuota q(100);
  Insert(&q, 0, 40);
  Insert(&q, 1, 40);
  ASSERT_TRUE(q.Pin(Id(1)).ok());
  EXPECT_EQ(q.Cleanup(0), std::vector<Digest>{Id(0)});
  EXPECT_EQ(q.size(), 40u);
}

TEST(LruQuotaTest, SetLimitCleansUpToTheNewThreshold) {
  LruQuota q(100);
  for (int i = 0; i < 4; ++i) Insert(&q, i, 25);
  std::vector<Digest> evicted;
  q.SetLimit(80, &evicted);
  EXPECT_EQ(evicted, (std::vector<Digest>{Id(0), Id(1), Id(2)}));
  evicted.clear();
  q.SetLimit(LruQuota::kUnlimited, &evicted);
  EXPECT_TRUE(evicted.empty());
  Insert(&q, 7, 1000000);
}

TEST(LruQuotaTest, RestoreKeepsOrderAndVolatileEntriesGoFirst) {
  LruQuota q(100);
  ASSERT_TRUE(q.Restore(Id(0), 10, 7, ObjectType::kCatalog, "a").ok());
  ASSERT_TRUE(q.Restore(Id(1), 10, 3, ObjectType::kRegular, "b").ok());
  ASSERT_TRUE(q.Restore(Id(2), 10, LruQuota::kVolatileFlag | 9,
                        ObjectType::kRegular, "c")
                  .ok());
  EXPECT_EQ(q.Restore(Id(3), 10, 3, ObjectType::kRegular, "d").code(),
            Code::kAlreadyExists);
  ASSERT_TRUE(q.Touch(Id(2)).ok());  // stays volatile, so still first
  auto order = q.InLruOrder();
  ASSERT_EQ(order.size(), 3u);
  EXPECT_EQ(order[0].first, Id(2));
  EXPECT_EQ(order[1].first, Id(1));
  EXPECT_EQ(order[2].first, Id(0));
  EXPECT_EQ(order[0].second->acseq & ~LruQuota::kVolatileFlag, 10);
  Insert(&q, 4, 10);  // sequence continues above every restored value
  EXPECT_EQ(q.Find(Id(4))->acseq, 11);
}

TEST(LruQuotaTest, SpeculativeEntriesGoFirstUntilOpenedForUse) {
  LruQuota q(100);
  std::vector<Digest> evicted;
  Insert(&q, 0, 20);
  ASSERT_TRUE(q.Insert(Id(1), 20, ObjectType::kRegular, "/p1", &evicted,
                       Access::kSpeculative)
                  .ok());
  ASSERT_TRUE(q.Insert(Id(2), 20, ObjectType::kRegular, "/p2", &evicted,
                       Access::kSpeculative)
                  .ok());
  Insert(&q, 3, 20);
  // Prefetched but never used: older than anything used, in their order.
  auto order = q.InLruOrder();
  ASSERT_EQ(order.size(), 4u);
  EXPECT_EQ(order[0].first, Id(1));
  EXPECT_EQ(order[1].first, Id(2));
  // A prefetcher's own open (or a touch) does not make them used...
  ASSERT_TRUE(q.Open(Id(1), Access::kSpeculative).ok());
  ASSERT_TRUE(q.Close(Id(1)).ok());
  ASSERT_TRUE(q.Touch(Id(2)).ok());
  EXPECT_LT(q.Find(Id(1))->acseq, 0);
  EXPECT_LT(q.Find(Id(2))->acseq, 0);
  // ...a reader's does: 2 becomes the most recently used object.
  ASSERT_TRUE(q.Open(Id(2), Access::kUse).ok());
  ASSERT_TRUE(q.Close(Id(2)).ok());
  EXPECT_GT(q.Find(Id(2))->acseq, q.Find(Id(3))->acseq);
  // 80 + 40 > 100: clean to 50. The unused prefetch goes first, then the
  // least recently used: 1, 0.
  evicted = Insert(&q, 4, 40);
  EXPECT_EQ(evicted, (std::vector<Digest>{Id(1), Id(0)}));
  EXPECT_NE(q.Find(Id(2)), nullptr);
  EXPECT_NE(q.Find(Id(3)), nullptr);
}

// ---------------------------------------------------------------------------
// Randomized comparison against a trivially correct model: a vector scanned
// linearly, written straight from the policy in lru_quota.h.

class Model {
 public:
  struct Obj {
    int id;
    uint64_t size;
    int64_t seq;
    uint32_t pins = 0, opens = 0;
    bool locked() const { return pins > 0 || opens > 0; }
  };

  explicit Model(uint64_t limit) : limit_(limit) {}
  bool unlimited() const { return limit_ == LruQuota::kUnlimited; }

  Obj* Find(int id) {
    for (Obj& o : objs_)
      if (o.id == id) return &o;
    return nullptr;
  }
  uint64_t Size() const {
    return Sum([](const Obj&) { return true; });
  }
  uint64_t Pinned() const {
    return Sum([](const Obj& o) { return o.pins > 0; });
  }
  uint64_t Locked() const {
    return Sum([](const Obj& o) { return o.locked(); });
  }

  std::vector<int> Cleanup(uint64_t target) {
    std::vector<int> out;
    while (Size() > target) {
      int victim = -1;
      for (size_t i = 0; i < objs_.size(); ++i) {
        if (objs_[i].locked()) continue;
        if (victim < 0 || objs_[i].seq < objs_[victim].seq) victim = int(i);
      }
      if (victim < 0) break;
      out.push_back(objs_[victim].id);
      objs_.erase(objs_.begin() + victim);
    }
    return out;
  }
  Code Insert(int id, uint64_t size, std::vector<int>* evicted) {
    if (Find(id)) return Code::kAlreadyExists;
    if (!unlimited()) {
      if (size > limit_ - limit_ / 2) return Code::kNoSpace;
      if (Size() + size > limit_) {
        if (Locked() + size > limit_) return Code::kNoSpace;
        *evicted = Cleanup(limit_ / 2);
      }
    }
    objs_.push_back({id, size, seq_++});
    return Code::kOk;
  }
  Code Touch(int id) {
    Obj* o = Find(id);
    if (!o) return Code::kNotFound;
    o->seq = seq_++;
    return Code::kOk;
  }
  Code Pin(int id) {
    Obj* o = Find(id);
    if (!o) return Code::kNotFound;
    if (o->pins == 0 && !unlimited() && Pinned() + o->size > limit_ / 2)
      return Code::kNoSpace;
    ++o->pins;
    return Code::kOk;
  }
  Code Unpin(int id) {
    Obj* o = Find(id);
    if (!o) return Code::kNotFound;
    if (o->pins == 0) return Code::kInvalidArgument;
    --o->pins;
    return Code::kOk;
  }
  Code Open(int id) {
    Obj* o = Find(id);
    if (!o) return Code::kNotFound;
    ++o->opens;
    o->seq = seq_++;
    return Code::kOk;
  }
  Code Close(int id) {
    Obj* o = Find(id);
    if (!o) return Code::kNotFound;
    if (o->opens == 0) return Code::kInvalidArgument;
    --o->opens;
    return Code::kOk;
  }
  Code Remove(int id) {
    for (size_t i = 0; i < objs_.size(); ++i) {
      if (objs_[i].id != id) continue;
      if (objs_[i].locked()) return Code::kBusy;
      objs_.erase(objs_.begin() + i);
      return Code::kOk;
    }
    return Code::kNotFound;
  }
  std::vector<int> SetLimit(uint64_t limit) {
    limit_ = limit;
    if (!unlimited() && Size() > limit_) return Cleanup(limit_ / 2);
    return {};
  }
  // Ids, least recently used first.
  std::vector<int> Order() const {
    std::vector<Obj> sorted = objs_;
    std::sort(sorted.begin(), sorted.end(),
              [](const Obj& a, const Obj& b) { return a.seq < b.seq; });
    std::vector<int> ids;
    for (const Obj& o : sorted) ids.push_back(o.id);
    return ids;
  }
  std::set<int> LockedIds() const {
    std::set<int> ids;
    for (const Obj& o : objs_)
      if (o.locked()) ids.insert(o.id);
    return ids;
  }
  uint64_t limit() const { return limit_; }

 private:
  template <typename Pred>
  uint64_t Sum(Pred pred) const {
    uint64_t sum = 0;
    for (const Obj& o : objs_)
      if (pred(o)) sum += o.size;
    return sum;
  }

  uint64_t limit_;
  int64_t seq_ = 0;
  std::vector<Obj> objs_;
};

class RandomOps {
 public:
  static constexpr int kIds = 40;

  explicit RandomOps(uint64_t seed) : rng_(seed) {
    for (int i = 0; i < kIds; ++i) ids_.push_back(Id(i));
  }

  // Runs `steps` random operations on both; stops at the first difference.
  void Run(int steps) {
    for (int step = 0; step < steps && !::testing::Test::HasFailure(); ++step) {
      std::set<int> locked_before = model_.LockedIds();
      std::vector<int> evicted_model;
      std::vector<Digest> evicted_real;
      std::string op = Step(&evicted_model, &evicted_real);
      SCOPED_TRACE("step " + std::to_string(step) + ": " + op);
      std::vector<Digest> expected;
      for (int id : evicted_model) expected.push_back(ids_[id]);
      EXPECT_EQ(evicted_real, expected);
      for (const Digest& d : evicted_real)
        EXPECT_EQ(locked_before.count(IndexOf(d)), 0u) << "evicted locked data";
      Compare();
    }
  }

 private:
  uint64_t Rand(uint64_t n) { return rng_() % n; }

  uint64_t RandomLimit() {
    static const uint64_t kLimits[] = {0, 1, 7, 100, 256, 1000, 4096};
    if (Rand(8) == 0) return LruQuota::kUnlimited;
    return kLimits[Rand(sizeof(kLimits) / sizeof(kLimits[0]))];
  }

  std::string Step(std::vector<int>* ev_model, std::vector<Digest>* ev_real) {
    int id = int(Rand(kIds));
    const Digest& d = ids_[id];
    std::string who = " #" + std::to_string(id);
    switch (Rand(10)) {
      case 0:
      case 1: {
        uint64_t size =
            Rand(model_.unlimited() ? 5000 : model_.limit() / 2 + 3);
        Code want = model_.Insert(id, size, ev_model);
        EXPECT_EQ(
            real_.Insert(d, size, ObjectType::kRegular, "", ev_real).code(),
            want);
        if (want == Code::kOk && !model_.unlimited()) {
          EXPECT_LE(real_.size(), real_.limit());
        }
        return "insert" + who + " size " + std::to_string(size);
      }
      case 2:
        EXPECT_EQ(real_.Touch(d).code(), model_.Touch(id));
        return "touch" + who;
      case 3: {
        // A first pin is charged: afterwards at most half the limit is
        // pinned (pins taken under a larger limit may exceed a later one).
        bool first = model_.Find(id) && model_.Find(id)->pins == 0;
        Code want = model_.Pin(id);
        EXPECT_EQ(real_.Pin(d).code(), want);
        if (want == Code::kOk && first && !model_.unlimited()) {
          EXPECT_LE(real_.pinned(), real_.threshold());
        }
        return "pin" + who;
      }
      case 4:
        EXPECT_EQ(real_.Unpin(d).code(), model_.Unpin(id));
        return "unpin" + who;
      case 5:
        EXPECT_EQ(real_.Open(d).code(), model_.Open(id));
        return "open" + who;
      case 6:
        EXPECT_EQ(real_.Close(d).code(), model_.Close(id));
        return "close" + who;
      case 7:
        EXPECT_EQ(real_.Remove(d).code(), model_.Remove(id));
        return "evict" + who;
      case 8: {
        uint64_t target = Rand(model_.Size() + 2);
        *ev_model = model_.Cleanup(target);
        *ev_real = real_.Cleanup(target);
        return "cleanup to " + std::to_string(target);
      }
      default: {
        uint64_t limit = RandomLimit();
        *ev_model = model_.SetLimit(limit);
        real_.SetLimit(limit, ev_real);
        return "set limit " + std::to_string(limit);
      }
    }
  }

  int IndexOf(const Digest& d) const {
    return int(std::find(ids_.begin(), ids_.end(), d) - ids_.begin());
  }

  void Compare() {
    std::vector<int> order;
    for (const auto& [d, e] : real_.InLruOrder()) {
      order.push_back(IndexOf(d));
      Model::Obj* o = model_.Find(IndexOf(d));
      ASSERT_NE(o, nullptr) << "unexpected object #" << IndexOf(d);
      EXPECT_EQ(e->size, o->size);
      EXPECT_EQ(e->pins, o->pins);
      EXPECT_EQ(e->opens, o->opens);
    }
    EXPECT_EQ(order, model_.Order());
    EXPECT_EQ(real_.count(), order.size());
    EXPECT_EQ(real_.size(), model_.Size());
    EXPECT_EQ(real_.pinned(), model_.Pinned());
  }

  std::mt19937_64 rng_;
  std::vector<Digest> ids_;
  LruQuota real_{1000};
  Model model_{1000};
};

TEST(LruQuotaTest, RandomizedAgainstModel) {
  std::vector<uint64_t> seeds = {1, 2, 3, 4, 5, 6, 7, 8};
  if (const char* s = std::getenv("CVMFS_TEST_SEED")) {
    seeds = {std::strtoull(s, nullptr, 10)};
  } else {
    seeds.push_back(std::random_device{}());
  }
  for (uint64_t seed : seeds) {
    SCOPED_TRACE("seed " + std::to_string(seed) +
                 " (rerun with CVMFS_TEST_SEED=" + std::to_string(seed) + ")");
    RandomOps(seed).Run(5000);
    if (HasFailure()) return;
  }
}

}  // namespace
}  // namespace cache
