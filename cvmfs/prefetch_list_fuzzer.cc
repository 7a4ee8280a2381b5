// Fuzz target: the two prefetch list formats (prefetch_list.h): a list set
// object from the repository and a recorded path list. Both promise
// Serialize(Parse(x)) == x for valid x, which is checked here.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/prefetch_list.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "property violated: %s\n", what);
  abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  auto lists = cvmfs::ParsePrefetchLists(text);
  if (lists.ok()) {
    std::string out = cvmfs::SerializePrefetchLists(*lists);
    Check(out == text, "SerializePrefetchLists(ParsePrefetchLists(x)) == x");
    for (const cvmfs::PrefetchList& l : *lists) {
      Check(cvmfs::ValidatePrefetchListName(l.name).ok(), "list name valid");
      (void)l.bytes();
      (void)l.objects();
    }
  }
  auto paths = cvmfs::ParseRecordedPaths(text);
  if (paths.ok()) {
    std::string out = cvmfs::FormatRecordedPaths(*paths, "");
    auto again = cvmfs::ParseRecordedPaths(out);
    Check(again.ok() && *again == *paths, "recorded paths round trip");
  }
  auto unescaped = cvmfs::UnescapeListPath(text);
  if (unescaped.ok()) {
    auto again = cvmfs::UnescapeListPath(cvmfs::EscapeListPath(*unescaped));
    Check(again.ok() && *again == *unescaped, "path escape round trip");
  }
  (void)cvmfs::ValidatePrefetchListName(text);
  return 0;
}
