// Start-up reconciliation of cachedb with the object files.
//
// cachedb is a write-behind record of the quota, so after a crash (or an
// administrator deleting files) it can disagree with the directory. Before
// the quota is trusted, the rows are matched against a scan of 00..ff:
//
//   * a row whose file is gone is dropped;
//   * a file without a row is added as least recently used (ordered by
//     atime, as CVMFS's rebuild does), type regular, description
//     "unknown (automatic rebuild)";
//   * with `stat_known`, sizes of known files are taken from stat() (used
//     after a crash; otherwise only names are read, which keeps start-up
//     cheap for caches of millions of files);
//   * pinned flags are reset: pins belong to the running process.
//
// Rows keep their relative LRU order. When anything changed, the result is
// re-sequenced (acseq 0..n-1, keeping the volatile bit) and `changed` is
// set so the caller rewrites cachedb.
//
// Thread safety: a free function; the caller owns the directory (flock).
#ifndef CACHE_CACHE_RECOVERY_H_
#define CACHE_CACHE_RECOVERY_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cache/cache_db.h"
#include "cvmfs/status.h"

namespace cache {

inline constexpr char kRebuiltDescription[] = "unknown (automatic rebuild)";

struct Reconciled {
  std::vector<CacheDb::Row> rows;  // least recently used first
  bool changed = false;
  size_t dropped = 0;  // rows without a file (or unreadable rows)
  size_t added = 0;    // files without a row
};

// `rows` must be in LRU order (as CacheDb::LoadAll returns them).
cvmfs::Result<Reconciled> ReconcileWithFiles(
    const std::string& dir, const std::vector<CacheDb::Row>& rows,
    bool stat_known);

// Deletes what is in <dir>/txn/ and was not modified for `min_age_seconds`
// (0: everything). Only the quota owner calls it: a private cache's owner
// removes all leftovers; the manager of a shared cache, whose clients write
// there concurrently, only those of crashed clients (an hour old).
cvmfs::Status RemoveStaleTransactions(const std::string& dir,
                                      int64_t min_age_seconds);

}  // namespace cache

#endif  // CACHE_CACHE_RECOVERY_H_
