#include "client/prefetch/prefetcher_plan.h"

#include <deque>
#include <utility>

#include "client/content_request.h"

namespace cvmfs::client {

namespace {

// The attached catalog mounted at `path`, or null if it is not attached.
MountedCatalog* AttachedAt(const CatalogSet& set, const std::string& path) {
  for (const MountedCatalog* c : set.Attached())
    if (c->mountpoint() == path) return const_cast<MountedCatalog*>(c);
  return nullptr;
}

}  // namespace

std::optional<ObjectRequest> WholeFileRequest(const std::string& path,
                                              const DirectoryEntry& entry,
                                              uint64_t max_object_size) {
  if (!entry.IsRegular() || entry.chunked || !entry.content_hash ||
      entry.size > max_object_size)
    return std::nullopt;
  return WholeContentRequest(path, entry);
}

PrefetchPlan PlanDirectoryPrefetch(const CatalogSet& set,
                                   MountedCatalog* catalog,
                                   const std::string& dir,
                                   const PrefetchPlanLimits& limits) {
  PrefetchPlan plan;
  uint64_t bytes = 0;
  auto full = [&] {
    return plan.next.size() + plan.later.size() >= limits.max_objects ||
           bytes >= limits.max_bytes;
  };
  std::deque<std::pair<MountedCatalog*, std::string>> dirs{{catalog, dir}};
  while (!dirs.empty() && !full() &&
         plan.listed.size() < limits.max_directories &&
         !(limits.stop && limits.stop())) {
    auto [c, path] = std::move(dirs.front());
    dirs.pop_front();
    auto rows = c->List(path);
    plan.listed.push_back(path);
    if (!rows.ok()) continue;  // a hint only: the reader will see the error
    std::vector<ObjectRequest>& out =
        plan.listed.size() == 1 ? plan.next : plan.later;
    for (const DirectoryEntry& e : *rows) {
      std::string child = path + "/" + e.name;
      if (e.IsDirectory()) {
        // Other revisions grafted in (/.cvmfs/snapshots) are not this
        // one's working set.
        if (e.bind_mountpoint) continue;
        MountedCatalog* holder =
            e.nested_mountpoint ? AttachedAt(set, child) : c;
        if (holder != nullptr) dirs.emplace_back(holder, std::move(child));
        continue;
      }
      if (full()) break;
      auto request = WholeFileRequest(child, e, limits.max_object_size);
      if (!request) continue;
      if (limits.attach && !limits.attach(&*request)) continue;
      bytes += request->size_hint();
      out.push_back(std::move(*request));
    }
  }
  return plan;
}

}  // namespace cvmfs::client
