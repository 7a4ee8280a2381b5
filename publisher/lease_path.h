// Lease paths (doc/gateway.md, "Leases"): "<fqrn>/<subpath>" as a publisher
// asks for it, split and normalized, and the overlap rule between two.
#ifndef PUBLISHER_LEASE_PATH_H_
#define PUBLISHER_LEASE_PATH_H_

#include <string>
#include <string_view>

#include "cvmfs/status.h"

namespace publisher {

struct LeasePath {
  std::string fqrn;
  std::string path;  // "/" or "/a/b": no trailing '/', no "." or ".."

  // "<fqrn>/a/b", or "<fqrn>/" for the whole repository (CVMFS's form).
  std::string ToString() const;
  bool operator==(const LeasePath& o) const {
    return fqrn == o.fqrn && path == o.path;
  }
};

// Parses "fqrn", "fqrn/", "fqrn/a/b" or "fqrn/a/b/"; InvalidArgument for an
// empty repository name, empty, "." or ".." components.
cvmfs::Result<LeasePath> ParseLeasePath(std::string_view text);

// Whether `path` ("/" or "/a/b") is `base` or lies below it.
bool IsAtOrBelow(std::string_view path, std::string_view base);
// Whether a change of `path` reaches outside the lease `lease`: it is
// neither at or below the lease path nor one of its parents (whose mtime
// and link count change with what is created below them). Such a change is
// refused: by the publisher before it sends anything, and at commit.
bool ReachesOutside(std::string_view path, std::string_view lease);
// Two leases conflict: same repository, one path at or below the other.
bool Overlaps(const LeasePath& a, const LeasePath& b);

}  // namespace publisher

#endif  // PUBLISHER_LEASE_PATH_H_
