// `cvmfs_server check`: walks every catalog of a revision and verifies that
// each object it references exists and, with `verify_content`, that the
// object's bytes match its name (and decompress cleanly). It also verifies
// every catalog's statistics: self_* against its rows, subtree_* against the
// totals of the catalogs nested in it.
#ifndef PUBLISHER_CHECK_H_
#define PUBLISHER_CHECK_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"

namespace publisher {

struct CheckReport {
  uint64_t catalogs = 0;
  uint64_t entries = 0;
  uint64_t objects_checked = 0;
  std::vector<std::string> problems;  // one line each
};

cvmfs::Result<CheckReport> CheckRevision(cvmfs::ObjectStore* store,
                                         const cvmfs::Digest& root,
                                         bool verify_content,
                                         const std::string& temp_dir);

}  // namespace publisher

#endif  // PUBLISHER_CHECK_H_
