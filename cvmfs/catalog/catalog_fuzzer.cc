// Fuzz target: a whole catalog (catalog.h) as a client opens it after
// download and decompression: the input is written as the SQLite file in a
// temporary directory and opened with Catalog; then its properties,
// counters, nested catalogs and a bounded walk with lookups, listings and
// chunk lists are read. Errors are fine; crashes, hangs and leaks are not.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/file_util.h"
#include "cvmfs/prefetch_list.h"
#include "testing/test_env.h"

namespace {

// Entries visited per input: keeps each run fast on big catalogs.
constexpr int kMaxVisits = 64;

void ReadMetadata(cvmfs::Catalog* catalog) {
  (void)catalog->revision();
  (void)catalog->ttl();
  (void)catalog->previous_revision();
  (void)catalog->last_modified();
  (void)catalog->schema();
  (void)catalog->schema_revision();
  (void)catalog->Property("prefetch_lists");
  (void)cvmfs::PrefetchListsObjectOf(*catalog);
  (void)catalog->ReadCounters();
  (void)catalog->MaxRowId();
  auto nested = catalog->NestedCatalogs();
  if (nested.ok()) {
    for (const cvmfs::NestedCatalogRef& ref : *nested)
      (void)catalog->FindNested(ref.path);
  }
  (void)catalog->BindMountpoints();
}

void WalkSome(cvmfs::Catalog* catalog) {
  int visits = 0;
  (void)catalog->Walk(
      [&](const std::string& path, const cvmfs::DirectoryEntry& entry) {
        if (++visits > kMaxVisits) return cvmfs::Status::Busy("enough");
        (void)catalog->Lookup(path);
        if (entry.IsDirectory()) (void)catalog->List(path);
        if (entry.chunked) (void)catalog->Chunks(path);
        return cvmfs::Status::Ok();
      });
  visits = 0;
  (void)catalog->ForEachEntry([&](const cvmfs::PathHash& key,
                                  const cvmfs::PathHash& parent,
                                  const cvmfs::DirectoryEntry&) {
    if (++visits > kMaxVisits) return cvmfs::Status::Busy("enough");
    (void)catalog->LookupByKey(key);
    (void)catalog->ListByKey(parent);
    return cvmfs::Status::Ok();
  });
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  cvmfs::testing::TempDir tmp;
  const std::string file = tmp.Sub("catalog.db");
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  if (!cvmfs::WriteFileAtomic(file, bytes).ok()) abort();
  auto catalog = cvmfs::Catalog::Open(file);
  if (!catalog.ok()) return 0;
  ReadMetadata(catalog->get());
  (void)(*catalog)->Lookup((*catalog)->root_prefix());
  (void)(*catalog)->List((*catalog)->root_prefix());
  WalkSome(catalog->get());
  return 0;
}
