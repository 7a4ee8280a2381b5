#include "client/prefetch/prefetch_list_loader.h"

#include <chrono>

#include "cvmfs/file_util.h"

namespace cvmfs::client {

namespace {

// Opens remembered while a list set loads: enough for a program's start-up,
// bounded so a busy mount cannot grow it.
constexpr size_t kMaxEarlyOpens = 4096;
// A list set larger than this is refused (a recording holds at most
// kMaxRecordedPaths paths, about 10 MB of text).
constexpr uint64_t kMaxListSetBytes = 64ull << 20;
// Objects looked at per feeding round: bounds the time the worker spends
// away from new load requests and stop.
constexpr size_t kMaxRound = 256;
// How long the worker waits for budget to free up before looking again.
constexpr std::chrono::milliseconds kFeedRetry{100};

std::vector<ObjectRequest> ObjectsOf(const PrefetchList& list) {
  std::vector<ObjectRequest> out;
  for (const PrefetchFile& f : list.files) {
    ObjectRequest r;
    r.compressed = f.compression == Compression::kZlib;
    r.description = f.path;
    if (f.hash) {
      r.digest = *f.hash;
      r.expected_size = f.size;
      out.push_back(r);
      continue;
    }
    uint64_t offset = 0;
    for (const PrefetchChunk& c : f.chunks) {
      r.digest = c.hash;
      r.suffix = ObjectSuffix::kPartial;
      r.description = f.path + "@" + std::to_string(offset);
      r.expected_size = c.size;
      out.push_back(r);
      offset += c.size;
    }
  }
  return out;
}

}  // namespace

PrefetchListLoader::PrefetchListLoader(ObjectFetcher* objects,
                                       cache::PosixCache* cache,
                                       Prefetcher* prefetcher, Logger log)
    : objects_(objects),
      cache_(cache),
      prefetcher_(prefetcher),
      log_(std::move(log)),
      worker_([this] { Run(); }) {}

PrefetchListLoader::~PrefetchListLoader() {
  {
    cvmfs::MutexLock lock(&mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  worker_.join();
}

void PrefetchListLoader::Load(CatalogSet* catalogs, uint64_t revision) {
  auto ref = catalogs->root()->With(
      [](Catalog& c) { return PrefetchListsObjectOf(c); });
  {
    cvmfs::MutexLock lock(&mu_);
    ++generation_;
    revision_ = revision;
    lists_.clear();
    triggers_.clear();
    feeding_.clear();
    early_opens_.clear();
    load_pending_ = false;
    load_error_.clear();
    phase_ = Phase::kNone;
    if (!ref.ok()) {
      phase_ = Phase::kFailed;
      load_error_ = ref.status().ToString();
      ++counts_.load_errors;
    } else if (ref->has_value()) {
      phase_ = Phase::kLoading;
      pending_digest_ = **ref;
      load_pending_ = true;
    }
  }
  if (!ref.ok() && log_)
    log_("prefetch lists of revision " + std::to_string(revision) +
         " ignored: " + ref.status().ToString());
  work_cv_.notify_all();
}

void PrefetchListLoader::OnOpen(const std::string& path) {
  bool fired = false;
  {
    cvmfs::MutexLock lock(&mu_);
    if (phase_ == Phase::kLoading) {
      if (early_opens_.size() < kMaxEarlyOpens) early_opens_.push_back(path);
      return;
    }
    if (phase_ != Phase::kLoaded) return;
    auto it = triggers_.find(path);
    if (it == triggers_.end()) return;
    for (size_t list : it->second) {
      if (lists_[list].fired) continue;
      FireLocked(list);
      fired = true;
    }
  }
  if (fired) work_cv_.notify_all();
}

void PrefetchListLoader::FireLocked(size_t list) {
  ListState& l = lists_[list];
  l.fired = true;
  ++counts_.lists_fired;
  feeding_.push_back(list);
}

void PrefetchListLoader::Run() {
  cvmfs::MutexLock lock(&mu_);
  while (!stop_) {
    if (load_pending_) {
      LoadPending();
      continue;
    }
    if (!feeding_.empty()) {
      if (FeedRound()) lock.WaitFor(&work_cv_, kFeedRetry);
      continue;
    }
    idle_cv_.notify_all();
    lock.Wait(&work_cv_);
  }
  idle_cv_.notify_all();
}

Result<std::vector<PrefetchList>> PrefetchListLoader::Fetch(
    const Digest& digest, uint64_t revision) {
  ObjectRequest request;
  request.digest = digest;
  request.compressed = true;
  request.description =
      "prefetch lists of revision " + std::to_string(revision);
  CVMFS_ASSIGN_OR_RETURN(cache::CacheHandle handle,
                         objects_->OpenReferenced(request));
  if (handle.size() > kMaxListSetBytes)
    return Status::Corruption("list set of " + std::to_string(handle.size()) +
                              " bytes is larger than the limit of " +
                              std::to_string(kMaxListSetBytes));
  std::string text(handle.size(), '\0');
  CVMFS_ASSIGN_OR_RETURN(
      size_t n, ReadFull(handle.fd(), text.data(), text.size(), "list set"));
  text.resize(n);
  return ParsePrefetchLists(text);
}

void PrefetchListLoader::LoadPending() {
  load_pending_ = false;
  const uint64_t generation = generation_;
  const uint64_t revision = revision_;
  const Digest digest = *pending_digest_;
  mu_.Unlock();  // Run()'s MutexLock holds it again when this returns
  auto lists = Fetch(digest, revision);
  if (log_) {
    log_(lists.ok()
             ? "loaded " + std::to_string(lists->size()) +
                   " prefetch lists of revision " + std::to_string(revision)
             : "prefetch lists " + digest.ToString() + " of revision " +
                   std::to_string(revision) +
                   " not loaded: " + lists.status().ToString());
  }
  mu_.Lock();
  if (generation != generation_) return;  // another revision meanwhile
  if (!lists.ok()) {
    phase_ = Phase::kFailed;
    load_error_ = lists.status().ToString();
    ++counts_.load_errors;
    early_opens_.clear();
    return;
  }
  for (PrefetchList& list : *lists) {
    ListState state;
    state.objects = ObjectsOf(list);
    state.list = std::move(list);
    triggers_[state.list.trigger()].push_back(lists_.size());
    lists_.push_back(std::move(state));
  }
  phase_ = Phase::kLoaded;
  std::vector<std::string> early;
  early.swap(early_opens_);
  for (const std::string& path : early) {
    auto it = triggers_.find(path);
    if (it == triggers_.end()) continue;
    for (size_t list : it->second)
      if (!lists_[list].fired) FireLocked(list);
  }
}

// One round for the list at the front of feeding_: skip what is cached,
// give the Prefetcher what its budget has room for, wait when it has none.
bool PrefetchListLoader::FeedRound() {
  const size_t index = feeding_.front();
  const uint64_t generation = generation_;
  ListState& state = lists_[index];
  const size_t first = state.next;
  const size_t end = std::min(state.objects.size(), first + kMaxRound);
  std::vector<ObjectRequest> window(state.objects.begin() + first,
                                    state.objects.begin() + end);
  mu_.Unlock();  // Run()'s MutexLock holds it again when this returns

  const PrefetchCounters pc = prefetcher_->counters();
  const uint64_t max_objects = prefetcher_->options().max_objects;
  size_t consumed = 0;
  uint64_t cached = 0, left_out = 0, queued = 0;
  bool give_up = !pc.enabled || pc.cache_full, wait = pc.paused;
  if (!give_up && !wait) {
    uint64_t room_objects = max_objects > pc.outstanding_objects
                                ? max_objects - pc.outstanding_objects
                                : 0;
    uint64_t room_bytes = pc.budget_bytes > pc.outstanding_bytes
                              ? pc.budget_bytes - pc.outstanding_bytes
                              : 0;
    std::vector<ObjectRequest> batch;
    for (const ObjectRequest& r : window) {
      if (cache_->Contains(r.digest)) {
        ++cached;
      } else if (r.size_hint() > pc.budget_bytes) {
        ++left_out;  // can never fit the budget
      } else if (batch.size() < room_objects && r.size_hint() <= room_bytes) {
        batch.push_back(r);
        room_bytes -= r.size_hint();
      } else {
        break;
      }
      ++consumed;
    }
    if (!batch.empty()) {
      queued = prefetcher_->Enqueue(batch, PrefetchPriority::kNext);
      left_out += batch.size() - queued;
    }
    // No room: let the engine expire fetched objects nobody used.
    wait = consumed == 0;
    if (wait) prefetcher_->Enqueue({}, PrefetchPriority::kNext);
  }

  mu_.Lock();
  if (generation != generation_ || stop_) return false;
  counts_.cached += cached;
  counts_.queued += queued;
  counts_.left_out += left_out;
  if (give_up) {
    counts_.left_out += state.objects.size() - state.next;
    state.next = state.objects.size();
    state.stopped = pc.enabled ? "cache full" : "prefetch off";
  } else {
    state.next += consumed;
  }
  if (state.next >= state.objects.size()) {
    feeding_.pop_front();
    return false;
  }
  return wait;
}

bool PrefetchListLoader::WaitIdle(int timeout_ms) {
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
  cvmfs::MutexLock lock(&mu_);
  while (!(stop_ || IdleLocked())) {
    if (lock.WaitUntil(&idle_cv_, deadline) == std::cv_status::timeout)
      return stop_ || IdleLocked();
  }
  return true;
}

PrefetchListCounters PrefetchListLoader::counters() const {
  cvmfs::MutexLock lock(&mu_);
  return counts_;
}

std::string PrefetchListLoader::Report() const {
  cvmfs::MutexLock lock(&mu_);
  std::string out =
      "prefetch lists of revision " + std::to_string(revision_) + ": ";
  switch (phase_) {
    case Phase::kNone:
      return out + "none\n";
    case Phase::kLoading:
      return out + "loading\n";
    case Phase::kFailed:
      return out + "not loaded (" + load_error_ + ")\n";
    case Phase::kLoaded:
      out += std::to_string(lists_.size()) + " loaded\n";
  }
  for (const ListState& l : lists_) {
    out += l.list.name + ": " + std::to_string(l.list.files.size()) +
           " files, " + std::to_string(l.objects.size()) + " objects, " +
           std::to_string(l.list.bytes()) + " bytes, trigger " +
           EscapeListPath(l.list.trigger()) + ": ";
    if (!l.fired) {
      out += "not fired\n";
    } else if (!l.stopped.empty()) {
      out += "stopped (" + l.stopped + ")\n";
    } else if (l.next < l.objects.size()) {
      out += "feeding (" + std::to_string(l.next) + " of " +
             std::to_string(l.objects.size()) + ")\n";
    } else {
      out += "done\n";
    }
  }
  const PrefetchListCounters& c = counts_;
  out += "objects queued " + std::to_string(c.queued) + ", cached " +
         std::to_string(c.cached) + ", left out " + std::to_string(c.left_out) +
         "\n";
  return out;
}

}  // namespace cvmfs::client
