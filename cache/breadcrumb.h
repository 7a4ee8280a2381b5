// Breadcrumb: the newest revision of a repository this cache has seen, kept
// in `<cache dir>/cvmfschecksum.<fqrn>` as CVMFS writes it:
//
//   <root catalog hash, hex + algorithm id>T<publish unix time>R<revision>
//
// without a trailing newline. Old CVMFS versions wrote no "R<revision>"
// part (revision 0) and very old ones no "T<time>" part; both still parse.
// Read on mount for offline boot and anti-rollback.
//
// Thread safety: free functions on values.
#ifndef CACHE_BREADCRUMB_H_
#define CACHE_BREADCRUMB_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

struct Breadcrumb {
  cvmfs::Digest root_hash;
  uint64_t timestamp = 0;
  uint64_t revision = 0;

  bool operator==(const Breadcrumb& o) const {
    return root_hash == o.root_hash && timestamp == o.timestamp &&
           revision == o.revision;
  }
};

std::string FormatBreadcrumb(const Breadcrumb& crumb);
// Corruption (naming the text) if it is not a breadcrumb. Surrounding
// whitespace is ignored (hand-edited files).
cvmfs::Result<Breadcrumb> ParseBreadcrumb(std::string_view text);

}  // namespace cache

#endif  // CACHE_BREADCRUMB_H_
