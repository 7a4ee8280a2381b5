#include "client/prefetch/prefetch_triggers.h"

#include <chrono>
#include <utility>

#include "client/prefetch/prefetcher_plan.h"

namespace cvmfs::client {

// Programs read the files of a directory one after another (tar, cp -r, a
// compiler's includes, Python's imports), and tree walkers go on into the
// subdirectories: when a directory is listed or one of its files is first
// read, its files are queued as likely next (kNext), those of its
// subdirectories as speculation (kLater). The catalog queries run on the
// planner thread, never on a FUSE thread; each directory is planned once
// per revision (the engine itself never queues an object twice), or twice
// when speculation started after the first plan (which then left the
// subtree out: the first reads of a cold start come before any miss). A
// directory that an earlier plan listed as part of its subtree is not
// planned again with its own subtree: its files move up to next work, and
// its subdirectories were listed by that plan too, or are where that plan
// stopped (not listed, so they are planned in full when reached). A walk
// of the tree thus lists each directory about once, not once for every
// ancestor. A read triggers nothing while the readers keep many downloads
// in flight by themselves, unless the link is very slow
// (Prefetcher::demand_parallel).

PrefetchTriggers::PrefetchTriggers(const PrefetchOptions& options,
                                   ObjectFetcher* objects,
                                   cache::PosixCache* cache,
                                   int readahead_threads, InodeLookup lookup,
                                   BundleIndex* bundles)
    : options_(options),
      objects_(objects),
      lookup_(std::move(lookup)),
      bundles_(bundles),
      engine_(std::make_unique<Prefetcher>(options, objects, cache)),
      planner_(engine_->enabled() ? 1 : 0, 256),
      readahead_(readahead_threads, 64) {}

PrefetchTriggers::~PrefetchTriggers() { Shutdown(); }

void PrefetchTriggers::Shutdown() {
  // Background jobs use the members below: stop them before any is gone.
  planner_.Shutdown();
  engine_->Shutdown();
  readahead_.Shutdown();
}

void PrefetchTriggers::FileOpened(const InodeInfo& file, int busy) {
  last_open_.store(options_.clock->Now().time_since_epoch().count(),
                   std::memory_order_relaxed);
  if (!engine_->enabled() || file.parent == 0) return;
  // The readers keep many downloads in flight by themselves on a link that
  // is not very slow: prefetch would add no parallelism, only work.
  if (engine_->demand_parallel(busy)) return;
  auto parent = lookup_(file.parent);
  if (!parent.ok()) return;
  std::vector<ObjectRequest> window =
      dir_readahead_.Opened((*parent)->path, file.path);
  if (!window.empty()) engine_->Enqueue(window, PrefetchPriority::kNext);
  PlanDirectory(**parent, false, file.path);
}

void PrefetchTriggers::PlanDirectory(const InodeInfo& dir, bool files_queued,
                                     const std::string& opened) {
  if (!engine_->enabled()) return;
  Prefetcher* engine = engine_.get();
  const bool speculating = engine->speculating();
  // Without speculation a directory's own files are planned, but a tree reader
  // (tar, cp -r) on a fast link gets the bundles of the subtree ahead, one
  // request per bundle: a bundle miss costs the server's disk read of a
  // whole directory's objects and the storing of each of them, which the
  // workers then do in parallel with the reader (a cold tar of the Linux
  // tree on loopback kept one connection busy and a third of the CPU idle
  // without it).
  const bool tree_bundles =
      !speculating && bundles_ != nullptr && dir_readahead_.TreeReader();
  bool listed;
  {
    cvmfs::MutexLock lock(&planned_mu_);
    // A bound on the memory, not a policy: planning again is harmless.
    if (planned_.size() >= 16384 || listed_.size() >= 16384) {
      planned_.clear();
      listed_.clear();
    }
    auto [it, inserted] = planned_.emplace(dir.path, speculating);
    if (!inserted) {
      // Planned already; once more only if speculation started since
      // (that plan left the subtree out).
      if (it->second || !speculating) return;
      it->second = true;
    }
    listed = listed_.count(dir.path) > 0;
  }
  if (listed && files_queued) return;
  std::shared_ptr<CatalogSet> set = dir.set;
  MountedCatalog* catalog = dir.catalog;
  std::string path = dir.path;
  const PrefetchOptions& o = options_;
  // As much as the engine's queue and backlog can hold: speculation over
  // the budget waits in the backlog until the program catches up.
  PrefetchPlanLimits limits;
  limits.max_objects = o.max_objects * Prefetcher::kBacklogFactor;
  limits.max_bytes = o.max_bytes * Prefetcher::kBacklogFactor;
  limits.max_object_size = o.max_object_size;
  // Without speculation only the directory's own files are planned, and
  // queued a window at a time as the program reads them (but see
  // tree_bundles above).
  limits.max_directories = listed || !(speculating || tree_bundles) ? 1 : 256;
  limits.stop = [engine] { return engine->held_back(); };
  // Files in a bundle: speculation queues one file per bundle (its miss
  // fetches the bundle; the workers fetch many bundles at once). A window
  // at a time needs every file listed (the reader's run is followed by
  // name); its first miss fetches the bundle all the same.
  if (bundles_ != nullptr && speculating) {
    auto seen = std::make_shared<std::unordered_set<std::string>>();
    limits.attach = [index = bundles_, set, seen](ObjectRequest* request) {
      return AttachBundleOnce(index, set, request, seen.get());
    };
  } else if (bundles_ != nullptr) {
    limits.attach = [index = bundles_, set](ObjectRequest* request) {
      AttachBundle(index, set, request);
      return true;
    };
  }
  const bool posted = planner_.Post([this, set, catalog, path, engine, limits,
                                     speculating, tree_bundles, opened] {
    // A nested catalog's mountpoint is listed from the nested catalog.
    MountedCatalog* holder = catalog;
    for (const MountedCatalog* c : set->Attached())
      if (c->mountpoint() == path) holder = const_cast<MountedCatalog*>(c);
    // The subtree of a tree reader only where there are bundles to fetch.
    PrefetchPlanLimits plan_limits = limits;
    const bool subtree_bundles = tree_bundles && bundles_->HasBundles(holder);
    if (tree_bundles && !subtree_bundles) plan_limits.max_directories = 1;
    PrefetchPlan plan = PlanDirectoryPrefetch(*set, holder, path, plan_limits);
    engine->NotePlanned(plan.listed.size());
    if (plan.listed.size() > 1) {
      cvmfs::MutexLock lock(&planned_mu_);
      listed_.insert(plan.listed.begin() + 1, plan.listed.end());
    }
    if (!speculating) {
      engine->Enqueue(dir_readahead_.Start(path, std::move(plan.next), opened),
                      PrefetchPriority::kNext);
      if (subtree_bundles)
        engine->Enqueue(OnePerBundle(std::move(plan.later)),
                        PrefetchPriority::kLater);
      return;
    }
    engine->Enqueue(plan.next, PrefetchPriority::kNext);
    engine->Enqueue(plan.later, PrefetchPriority::kLater);
  });
  if (!posted) {
    cvmfs::MutexLock lock(&planned_mu_);
    planned_.erase(dir.path);
  }
}

// A listing at hand: its files are queued right here (no catalog query,
// no wait for the planner thread, which may be busy with an earlier
// subtree), the subtree is planned in the background. Only while files are
// being read (one opened within kReadingWindow): a metadata walk (find,
// ls -lR) reads no file, and prefetching what it lists would only cost it
// time and bandwidth; a tree reader (tar) opens files all the time. Still
// a guess (Python's import system lists every directory it searches and
// reads few of the files): only while speculation pays.
void PrefetchTriggers::DirectoryListed(
    const InodeInfo& dir, const std::vector<DirectoryEntry>& rows) {
  constexpr Clock::Duration kReadingWindow = std::chrono::seconds(2);
  if (!engine_->speculating()) return;
  const Clock::Duration since_open =
      options_.clock->Now().time_since_epoch() -
      Clock::Duration(last_open_.load(std::memory_order_relaxed));
  if (since_open > kReadingWindow) return;
  {
    cvmfs::MutexLock lock(&planned_mu_);
    auto it = planned_.find(dir.path);
    if (it != planned_.end() && it->second) return;
  }
  std::vector<ObjectRequest> files;
  for (const DirectoryEntry& e : rows) {
    auto request =
        WholeFileRequest(dir.path + "/" + e.name, e, options_.max_object_size);
    if (!request) continue;
    // Looked up by the worker (no catalog query on this thread).
    AttachBundle(bundles_, dir.set, &*request);
    files.push_back(std::move(*request));
  }
  engine_->Enqueue(files, PrefetchPriority::kNext);
  PlanDirectory(dir, /*files_queued=*/true, "");
}

std::vector<ObjectRequest> PrefetchTriggers::OnePerBundle(
    std::vector<ObjectRequest> files) {
  std::unordered_set<std::string> seen;
  std::vector<ObjectRequest> out;
  for (ObjectRequest& request : files) {
    if (!request.bundle) continue;
    std::optional<BundleRef> ref = request.bundle();
    if (!ref || !seen.insert(ref->hash.ToString()).second) continue;
    request.bundle = [ref] { return ref; };
    out.push_back(std::move(request));
  }
  return out;
}

void PrefetchTriggers::ChunksAhead(std::vector<ObjectRequest> chunks) {
  if (engine_->enabled()) {
    engine_->Enqueue(chunks, PrefetchPriority::kNext);
    return;
  }
  ObjectFetcher* objects = objects_;
  for (ObjectRequest& request : chunks)
    readahead_.Post([objects, request] { (void)objects->Open(request); });
}

void PrefetchTriggers::WaitIdle() {
  planner_.WaitIdle();
  readahead_.WaitIdle();
}

void PrefetchTriggers::RevisionSwitched() {
  {
    cvmfs::MutexLock lock(&planned_mu_);
    planned_.clear();
    listed_.clear();
  }
  dir_readahead_.Clear();
  engine_->NewGeneration();
}

}  // namespace cvmfs::client
