// CheckCache: what CVMFS's cvmfs_fsck does to a cache directory (and
// `cvmfs_config fsck` to every one): re-hash every object file in 00..ff
// and compare with its name (cache_layout.h).
//
// An object's name is the hash of its stored form, but the cache holds it
// decompressed, so a file verifies if the hash of its content compressed
// as a publisher stores it matches: libdeflate at level 6 (our publisher),
// zlib at level 6 (CVMFS's), or of the content itself (compression
// "none"). Each file is read whole: objects are chunk-sized or catalogs.
//
// A mismatch is an error; with `fix` (-p) the file is moved to
// quarantaine/<digest> (unlinked if that fails), and the quota database
// (cachedb) is unlinked so that the next mount rebuilds it from the files,
// as CVMFS does (`force_rebuild`, -f, unlinks it anyway). A running client
// keeps working: it opens objects by name, a quarantined one is missing
// and fetched again on its next read (its quota forgets it), and its open
// cachedb handle lives on until it unmounts. Files that vanish during the
// check (evicted) are skipped; txn/ is only reported if not empty.
//
// Exit bits as cvmfs_fsck: 1 errors fixed, 4 errors left, 8 operational
// error (unreadable file, no such cache), 16 usage.
//
// Thread safety: CheckCache runs `threads` workers itself; the stream is
// written under an internal lock.
#ifndef CACHE_CACHE_CHECK_H_
#define CACHE_CACHE_CHECK_H_

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>

#include "cvmfs/hash.h"

namespace cache {

inline constexpr int kCheckFixed = 1;
inline constexpr int kCheckReboot = 2;  // never set; kept for CVMFS's table
inline constexpr int kCheckUnfixed = 4;
inline constexpr int kCheckOperational = 8;
inline constexpr int kCheckUsage = 16;

struct CacheCheckOptions {
  bool verbose = false;        // -v: one line per file
  bool fix = false;            // -p: quarantine what is corrupted
  bool force_rebuild = false;  // -f: unlink cachedb anyway
  int threads = 1;             // -j
};

struct CacheCheckReport {
  uint64_t files = 0;        // object files verified
  uint64_t fixed = 0;        // corrupted and set aside (plus cachedb)
  uint64_t unfixed = 0;      // corrupted and left in place
  uint64_t operational = 0;  // could not be checked
  int ExitCode() const;      // the bits above
};

// Whether `content` (an object file's bytes) is the object `id`.
bool ObjectContentMatches(const cvmfs::Digest& id, std::string_view content);

// Checks `dir`, printing CVMFS's messages to `out`.
CacheCheckReport CheckCache(const std::string& dir,
                            const CacheCheckOptions& options,
                            std::ostream& out);

}  // namespace cache

#endif  // CACHE_CACHE_CHECK_H_
