#include "client/prefetch/prefetcher.h"

#include <algorithm>

namespace cvmfs::client {

namespace {

// The cache's fill is a quota lookup (an IPC with a shared cache): not
// more often than this.
constexpr auto kCacheCheckInterval = std::chrono::milliseconds(250);
// Windows over which the prefetch rate is measured.
constexpr auto kRateWindow = std::chrono::seconds(2);

}  // namespace

PrefetchOptions PrefetchOptionsFrom(const ClientSettings& settings) {
  PrefetchOptions o;
  o.enabled = settings.prefetch && settings.prefetch_files > 0 &&
              settings.prefetch_parallel > 0;
  o.max_objects = static_cast<size_t>(settings.prefetch_files);
  o.max_bytes = static_cast<uint64_t>(settings.prefetch_budget_mb) << 20;
  o.parallel = settings.prefetch_parallel;
  o.speculate_after = std::chrono::milliseconds(settings.prefetch_speculate_ms);
  return o;
}

Prefetcher::Prefetcher(PrefetchOptions options, ObjectFetcher* objects,
                       cache::PosixCache* cache)
    : options_(std::move(options)),
      objects_(objects),
      cache_(cache),
      budget_bytes_(options_.max_bytes) {
  if (!options_.enabled || options_.max_objects == 0 || options_.max_bytes == 0)
    return;
  for (int i = 0; i < options_.parallel; ++i)
    threads_.emplace_back([this] { Run(); });
}

Prefetcher::~Prefetcher() { Shutdown(); }

void Prefetcher::Shutdown() {
  {
    cvmfs::MutexLock lock(&mu_);
    stop_ = true;
    counts_.skipped_throttled += QueuedItems();
    for (auto& q : queue_) q.clear();
    for (auto& b : backlog_) b.clear();
  }
  work_cv_.notify_all();
  idle_cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

bool Prefetcher::WaitIdle(std::chrono::milliseconds timeout) const {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  cvmfs::MutexLock lock(&mu_);
  while (!(stop_ || (active_ == 0 && QueuedItems() == 0))) {
    if (lock.WaitUntil(&idle_cv_, deadline) == std::cv_status::timeout)
      return stop_ || (active_ == 0 && QueuedItems() == 0);
  }
  return true;
}

size_t Prefetcher::Enqueue(const std::vector<ObjectRequest>& objects,
                           PrefetchPriority priority) {
  if (threads_.empty()) return 0;
  size_t refilled = 0;
  std::vector<const Digest*> queued;  // point into `objects`
  {
    cvmfs::MutexLock lock(&mu_);
    ExpireUnused();
    // The newest batch goes before what its lane holds, in the order given.
    std::vector<Item> batch;
    std::vector<ObjectRequest> over_budget;
    for (const ObjectRequest& request : objects) {
      const Admission a = Admit(request, priority);
      if (a == Admission::kOverBudget) over_budget.push_back(request);
      if (a != Admission::kQueued) continue;
      batch.push_back(Item{request, known_[request.digest].ticket});
      queued.push_back(&request.digest);
    }
    std::deque<Item>& lane = queue_[Lane(priority)];
    lane.insert(lane.begin(), std::make_move_iterator(batch.begin()),
                std::make_move_iterator(batch.end()));
    Backlog(std::move(over_budget), priority);
    refilled = Refill();
  }
  // A cached object costs a worker an open and a readahead call, not a
  // download: a few workers go through a window of them (each takes the
  // next item without sleeping), instead of one wake-up per object (a HOT
  // tar of the Linux tree spent a fifth of the client's CPU switching
  // threads).
  size_t cached = 0;
  for (const Digest* digest : queued) cached += cache_->Contains(*digest);
  Wake(queued.size() - cached + std::min(cached, kCachedWorkers) + refilled);
  return queued.size();
}

// Decides whether `request` enters the queue and books it in known_ with a
// fresh ticket. With mu_ held.
Prefetcher::Admission Prefetcher::Admit(const ObjectRequest& request,
                                        PrefetchPriority priority) {
  auto it = known_.find(request.digest);
  if (it != known_.end()) {
    Known& k = it->second;
    // Known work is done once; only a queued kLater object moves up.
    if (k.state != State::kQueued || priority != PrefetchPriority::kNext ||
        k.priority == PrefetchPriority::kNext)
      return Admission::kKnown;
    k.ticket = next_ticket_++;  // the old queue item is stale now
    k.priority = priority;
    return Admission::kQueued;
  }
  if (stop_ || Throttled()) {
    ++counts_.skipped_throttled;
    return Admission::kThrottled;
  }
  const uint64_t size = request.size_hint();
  // kLater work gets half the budget: the rest is for work read next.
  const bool later = priority == PrefetchPriority::kLater;
  const uint64_t object_limit =
      later ? options_.max_objects / 2 : options_.max_objects;
  const uint64_t byte_limit = later ? budget_bytes_ / 2 : budget_bytes_;
  const bool fits = later ? outstanding_objects_ + 1 <= object_limit &&
                                outstanding_bytes_ + size <= byte_limit
                          : MakeRoom(size, object_limit, byte_limit);
  if (!fits) return Admission::kOverBudget;  // to the backlog
  if (known_.size() >= options_.generation_size) ForgetDone();
  Known& k = known_[request.digest];
  k.ticket = next_ticket_++;
  k.size = size;
  k.priority = priority;
  k.counted = true;
  ++outstanding_objects_;
  outstanding_bytes_ += size;
  ++counts_.queued;
  return Admission::kQueued;
}

// Puts work that is over the budget in front of its backlog (the newest
// trigger is nearest to where the program reads now); the oldest entries
// beyond the bound are dropped. With mu_ held.
void Prefetcher::Backlog(std::vector<ObjectRequest> requests,
                         PrefetchPriority p) {
  if (requests.empty()) return;
  std::deque<ObjectRequest>& backlog = backlog_[Lane(p)];
  backlog.insert(backlog.begin(), std::make_move_iterator(requests.begin()),
                 std::make_move_iterator(requests.end()));
  const size_t bound = options_.max_objects * kBacklogFactor;
  while (backlog.size() > bound) {
    backlog.pop_back();
    ++counts_.skipped_budget;
  }
}

// Moves backlog entries into the queue while the kLater budget has room;
// true if any was queued. With mu_ held.
size_t Prefetcher::Refill() {
  size_t queued = 0;
  if ((backlog_[0].empty() && backlog_[1].empty()) || Throttled()) return 0;
  for (PrefetchPriority p :
       {PrefetchPriority::kNext, PrefetchPriority::kLater}) {
    std::deque<ObjectRequest>& backlog = backlog_[Lane(p)];
    while (!backlog.empty() && !stop_) {
      const ObjectRequest& request = backlog.front();
      const Admission a = Admit(request, p);
      if (a == Admission::kOverBudget || a == Admission::kThrottled) break;
      if (a == Admission::kQueued) {
        // After the work of its lane: it continues an earlier batch.
        queue_[Lane(p)].push_back(Item{request, known_[request.digest].ticket});
        ++queued;
      }
      backlog.pop_front();
    }
  }
  return queued;
}

// Whether a kNext object of `size` fits under the limits, after moving
// queued kLater work from the back of its lane (the farthest speculation)
// back to the backlog if that makes room. With mu_ held.
bool Prefetcher::MakeRoom(uint64_t size, uint64_t object_limit,
                          uint64_t byte_limit) {
  auto fits = [&] {
    mu_.AssertHeld();  // called right here, under the lock
    return outstanding_objects_ + 1 <= object_limit &&
           outstanding_bytes_ + size <= byte_limit;
  };
  std::deque<Item>& later = queue_[Lane(PrefetchPriority::kLater)];
  while (!fits() && !later.empty()) {
    Item& back = later.back();
    auto it = known_.find(back.request.digest);
    const bool current = it != known_.end() &&
                         it->second.state == State::kQueued &&
                         it->second.ticket == back.ticket;
    if (current) {
      Release(&it->second);
      known_.erase(it);
      backlog_[Lane(PrefetchPriority::kLater)].push_front(back.request);
    }
    later.pop_back();
  }
  return fits();
}

// Offline, a nearly full cache, or readers that keep a fast link busy by
// themselves. With mu_ held.
bool Prefetcher::Throttled() {
  if (held_back()) return true;
  const TimePoint now = options_.clock->Now();
  if (paused_until_ != TimePoint{}) {
    // A demand download that worked means the network is back.
    const bool demand_ok =
        objects_->counters().downloads > demand_downloads_at_pause_;
    if (now < paused_until_ && !demand_ok) return true;
    paused_until_ = TimePoint{};
    // After a pause that merely ran out, the next prefetch is a probe: one
    // more failure pauses again.
    failures_in_row_ = demand_ok ? 0 : options_.error_pause_after - 1;
  }
  return CacheNearlyFull();
}

bool Prefetcher::CacheNearlyFull() {
  const TimePoint now = options_.clock->Now();
  if (cache_checked_ != TimePoint{} &&
      now - cache_checked_ < kCacheCheckInterval)
    return cache_full_;
  cache_checked_ = now;
  cache::PosixCache::Usage usage = cache_->usage();
  // An unmanaged cache (no quota) never evicts: never full for us.
  if (usage.limit == 0 || usage.limit == UINT64_MAX) {
    cache_full_ = false;
  } else {
    const uint64_t free =
        usage.limit > usage.size ? usage.limit - usage.size : 0;
    cache_full_ = free < options_.max_bytes;
  }
  return cache_full_;
}

// Fetched objects not used within the grace period stop counting against
// the budget. With mu_ held.
void Prefetcher::ExpireUnused() {
  const TimePoint now = options_.clock->Now();
  while (!unused_.empty() &&
         now - unused_.front().first >= options_.unused_grace) {
    auto it = known_.find(unused_.front().second);
    if (it != known_.end() && it->second.state == State::kFetched)
      Release(&it->second);
    unused_.pop_front();
  }
}

void Prefetcher::Release(Known* known) {
  if (!known->counted) return;
  known->counted = false;
  --outstanding_objects_;
  outstanding_bytes_ -= known->size;
}

// A new generation when known_ is full: forget finished objects (queued and
// running ones stay). With mu_ held.
void Prefetcher::ForgetDone() {
  for (auto it = known_.begin(); it != known_.end();) {
    if (it->second.state == State::kQueued ||
        it->second.state == State::kInFlight) {
      ++it;
      continue;
    }
    Release(&it->second);
    it = known_.erase(it);
  }
  unused_.clear();
}

void Prefetcher::NewGeneration() {
  cvmfs::MutexLock lock(&mu_);
  ForgetDone();
  for (auto& b : backlog_) b.clear();  // objects of the old revision
}

void Prefetcher::OnDemand(const Digest& digest) {
  size_t refilled = 0;
  {
    cvmfs::MutexLock lock(&mu_);
    OnDemandLocked(digest);
    refilled = Refill();
  }
  Wake(refilled);
}

// One worker per new item: waking them all for every batch (each demand
// open queues a few) would cost every idle worker a context switch and a
// turn at mu_, on the CPUs the readers need.
void Prefetcher::Wake(size_t items) {
  if (items >= threads_.size()) {
    work_cv_.notify_all();
    return;
  }
  for (size_t i = 0; i < items; ++i) work_cv_.notify_one();
}

void Prefetcher::OnDemandLocked(const Digest& digest) {
  auto it = known_.find(digest);
  if (it == known_.end()) return;
  Known& k = it->second;
  switch (k.state) {
    case State::kQueued:
      // The reader fetches it now; its queue item is stale from here on.
      Release(&k);
      k.state = State::kDone;
      ++counts_.overtaken;
      break;
    case State::kInFlight:
      k.demanded = true;  // the reader waits for this download
      break;
    case State::kFetched:
      Release(&k);
      k.state = State::kDone;
      ++counts_.used;
      counts_.used_bytes += k.size;
      break;
    case State::kDone:
      break;
  }
}

// Waits for a current queue item (each worker thread is one transfer slot);
// false when stopping.
bool Prefetcher::TakeNext(Item* item) {
  cvmfs::MutexLock lock(&mu_);
  for (;;) {
    if (active_ == 0 && QueuedItems() == 0) idle_cv_.notify_all();
    while (!stop_ && QueuedItems() == 0) lock.Wait(&work_cv_);
    if (stop_) return false;
    std::deque<Item>& lane = queue_[0].empty() ? queue_[1] : queue_[0];
    Item next = std::move(lane.front());
    lane.pop_front();
    auto it = known_.find(next.request.digest);
    if (it == known_.end() || it->second.state != State::kQueued ||
        it->second.ticket != next.ticket)
      continue;  // overtaken, moved up, or dropped
    if (Throttled()) {
      Release(&it->second);
      known_.erase(it);
      ++counts_.skipped_throttled;
      continue;
    }
    it->second.state = State::kInFlight;
    ++active_;
    *item = std::move(next);
    item->priority = it->second.priority;
    return true;
  }
}

void Prefetcher::Run() {
  Item item;
  while (TakeNext(&item)) {
    const TimePoint started = options_.clock->Now();
    // Already cached (the quota's index answers from memory): no download.
    // Likely next reads (the files of the directory being read) are read
    // ahead from the disk, so that a warm cache on a cold disk works ahead
    // of the reader too, without the cache's lock or bookkeeping (the
    // reader's own opens never wait behind a read-ahead's disk access);
    // speculation costs no I/O.
    if (cache_->Contains(item.request.digest)) {
      uint64_t size = item.request.size_hint();
      // (Not what this cache stored a moment ago: it is in memory still.)
      if (item.priority == PrefetchPriority::kNext &&
          !cache_->RecentlyStored(item.request.digest)) {
        auto cached = cache_->ReadAhead(item.request.digest);
        if (cached.ok()) size = *cached;
      }
      Finish(item, Status::Ok(), false, size, started);
      continue;
    }
    ObjectRequest request = item.request;
    request.speculative = true;
    auto handle = objects_->Open(request);
    const uint64_t size = handle.ok() ? handle->size() : 0;
    Finish(item, handle.status(), true, size, started);
  }
}

void Prefetcher::Finish(const Item& item, Status status, bool downloaded,
                        uint64_t size, TimePoint started) {
  size_t refilled = 0;
  {
    cvmfs::MutexLock lock(&mu_);
    --active_;
    auto it = known_.find(item.request.digest);
    Known* k = it != known_.end() ? &it->second : nullptr;
    if (k != nullptr && k->counted && size != k->size) {
      outstanding_bytes_ = outstanding_bytes_ - k->size + size;
      k->size = size;
    }
    if (!status.ok()) {
      ++counts_.errors;
      if (++failures_in_row_ >= options_.error_pause_after) {
        paused_until_ = options_.clock->Now() + options_.error_pause;
        demand_downloads_at_pause_ = objects_->counters().downloads;
      }
      // Forgotten, so that it may be tried again later.
      if (k != nullptr) {
        Release(k);
        known_.erase(it);
      }
    } else {
      failures_in_row_ = 0;
      if (!downloaded) ++counts_.cached;
      if (downloaded) {
        ++counts_.fetched;
        counts_.fetched_bytes += size;
        MeasureRate(size, started);
      }
      if (k != nullptr && !downloaded && !k->demanded &&
          item.priority == PrefetchPriority::kLater) {
        // Cached speculation cost nothing and was not read ahead: forgotten,
        // so that it is read ahead from the disk once it becomes next work.
        Release(k);
        known_.erase(it);
      } else if (k != nullptr && (k->demanded || !downloaded)) {
        // A cached object costs nothing; one a reader waited for is used.
        if (k->demanded && downloaded) {
          ++counts_.used;
          counts_.used_bytes += size;
        }
        Release(k);
        k->state = State::kDone;
      } else if (k != nullptr) {
        k->state = State::kFetched;
        unused_.emplace_back(options_.clock->Now(), item.request.digest);
      }
    }
    refilled = Refill();
  }
  // This worker takes one itself.
  Wake(refilled > 0 ? refilled - 1 : 0);
}

// The aggregate rate over windows in which work was waiting for a slot
// (otherwise the rate says how much there was to do, not what the link
// does). With mu_ held.
void Prefetcher::MeasureRate(uint64_t bytes, TimePoint started) {
  const TimePoint now = options_.clock->Now();
  if (QueuedItems() == 0) {
    window_start_ = TimePoint{};
    window_bytes_ = 0;
    return;
  }
  if (window_start_ == TimePoint{}) window_start_ = started;
  window_bytes_ += bytes;
  const auto elapsed = now - window_start_;
  if (elapsed < kRateWindow) return;
  const double seconds = std::chrono::duration<double>(elapsed).count();
  rate_ = window_bytes_ / seconds;
  window_start_ = TimePoint{};
  window_bytes_ = 0;
  const double drainable = rate_ * options_.drain_seconds;
  const uint64_t floor = std::max<uint64_t>(options_.max_bytes / 8, 1);
  budget_bytes_ = std::clamp<uint64_t>(static_cast<uint64_t>(drainable), floor,
                                       options_.max_bytes);
}

bool Prefetcher::speculating() const {
  if (!enabled()) return false;
  const auto after = std::chrono::duration_cast<std::chrono::microseconds>(
      options_.speculate_after);
  if (after.count() == 0) return true;
  // A warm cache (no miss yet) needs no guessing, whatever the link.
  return objects_->demand_misses() > 0 &&
         objects_->round_trip_us() >= static_cast<uint64_t>(after.count());
}

bool Prefetcher::demand_parallel(int busy_readers) const {
  if (objects_->demand_waiting() >= kParallelDemand ||
      busy_readers >= kParallelDemand)
    parallel_seen_.store(options_.clock->Now().time_since_epoch().count(),
                         std::memory_order_relaxed);
  return held_back();
}

bool Prefetcher::held_back() const {
  const Clock::Duration seen(parallel_seen_.load(std::memory_order_relaxed));
  if (seen.count() == 0 ||
      options_.clock->Now().time_since_epoch() - seen >= kParallelHold)
    return false;
  const auto after = std::chrono::duration_cast<std::chrono::microseconds>(
      options_.speculate_after);
  return objects_->round_trip_us() <
         static_cast<uint64_t>(kParallelLatencyFactor * after.count());
}

void Prefetcher::NotePlanned(size_t directories) {
  cvmfs::MutexLock lock(&mu_);
  counts_.directories_planned += directories;
}

PrefetchCounters Prefetcher::counters() const {
  cvmfs::MutexLock lock(&mu_);
  PrefetchCounters c = counts_;
  c.wasted_bytes =
      c.fetched_bytes > c.used_bytes ? c.fetched_bytes - c.used_bytes : 0;
  c.pending = QueuedItems();
  c.backlog = backlog_[0].size() + backlog_[1].size();
  c.in_flight = static_cast<uint64_t>(active_);
  c.outstanding_objects = outstanding_objects_;
  c.outstanding_bytes = outstanding_bytes_;
  c.budget_bytes = budget_bytes_;
  c.rate = static_cast<uint64_t>(rate_);
  c.round_trip_us = objects_->round_trip_us();
  c.demand_misses = objects_->demand_misses();
  c.speculating = speculating();
  c.enabled = !threads_.empty();
  c.paused = paused_until_ != TimePoint{};
  c.cache_full = cache_full_;
  c.parallel_readers = held_back();
  return c;
}

}  // namespace cvmfs::client
