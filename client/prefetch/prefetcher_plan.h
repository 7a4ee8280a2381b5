// PlanDirectoryPrefetch: which objects to prefetch when a directory is
// listed or one of its files is first read, from the catalogs alone (no
// download): the directory's own small regular files (read next by tar,
// cp -r, a compiler's includes, Python's imports), then, breadth first, those
// of its subdirectories (what a tree walker reads after this directory).
//
//   dir ─► its files, in listing order ─────────────────► `next`
//      └─► subdirectories, level by level ─► their files ─► `later`
//
// `listed` names the directories whose files the plan holds (the last one
// possibly in part, when a limit was reached).
//
// Limits: files larger than `max_object_size`, chunked files and files
// without content hash are left out (large files are read ahead chunk by
// chunk instead); the plan stops at `max_objects` objects, `max_bytes`
// bytes or `max_directories` listed directories. Nested catalogs are
// entered only when they are attached already: planning never downloads.
//
// Thread safety: reads the catalogs through MountedCatalog::With, like any
// reader; call from a background thread (each directory is a query).
#ifndef CLIENT_PREFETCH_PREFETCHER_PLAN_H_
#define CLIENT_PREFETCH_PREFETCHER_PLAN_H_

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "client/catalog_set.h"
#include "client/object_fetcher.h"

namespace cvmfs::client {

struct PrefetchPlanLimits {
  size_t max_objects = 512;
  uint64_t max_bytes = 32ull << 20;
  uint64_t max_object_size = 1 << 20;
  size_t max_directories = 64;
  // Asked before each directory: true ends the plan there (prefetch is
  // held back; listing more would only take CPU from the readers).
  std::function<bool()> stop;
  // Called for each file's request planned (bundle_index.h); false leaves
  // the file out (its bundle comes with another file of the plan).
  std::function<bool(ObjectRequest*)> attach;
};

struct PrefetchPlan {
  std::vector<ObjectRequest> next;   // the directory's own files
  std::vector<ObjectRequest> later;  // files of its subdirectories
  std::vector<std::string> listed;   // the directories listed
};

// `dir` is a repository path ("" for the root, else "/a/b") held by
// `catalog`, which belongs to `set`.
PrefetchPlan PlanDirectoryPrefetch(const CatalogSet& set,
                                   MountedCatalog* catalog,
                                   const std::string& dir,
                                   const PrefetchPlanLimits& limits);

// The request for a regular file's whole content, or nullopt if it is not
// one (chunked, no hash, larger than `max_object_size`).
std::optional<ObjectRequest> WholeFileRequest(const std::string& path,
                                              const DirectoryEntry& entry,
                                              uint64_t max_object_size);

}  // namespace cvmfs::client

#endif  // CLIENT_PREFETCH_PREFETCHER_PLAN_H_
