// CacheLayout: every name inside a cache directory (doc/client.md, "The
// cache"), and the parser that turns object file names back into digests.
//
//   <dir>/00 .. ff/            objects "XX/<rest>", where XX<rest> is the
//                              digest's text form: lowercase hex plus the
//                              algorithm id ("", "-rmd160", "-shake128"),
//                              never an object-type suffix; mode 0600
//   <dir>/txn/                 objects being written (mkstemp "fetchXXXXXX"),
//                              renamed into place when complete
//   <dir>/quarantaine/         objects set aside by integrity checks
//   <dir>/cachedb              SQLite quota database (cache_db.h)
//   <dir>/lock_cachedb         flock()ed by the process owning the quota
//   <dir>/cachemgr.running     exists while a quota owner runs; found at
//                              start-up it means a crash (cachedb may be
//                              behind the files)
//   <dir>/cachemgr             shared cache: the cache manager's Unix
//                              socket (doc/format-cache-protocol.md)
//   <dir>/lock_cachemgr        flock()ed while a client connects to or
//                              starts the manager, and while it stops
//   <dir>/cachemgr.log         the cache manager's log
//   <dir>/cvmfschecksum.<fqrn> breadcrumb (breadcrumb.h)
//
// Thread safety: free functions on values.
#ifndef CACHE_CACHE_LAYOUT_H_
#define CACHE_CACHE_LAYOUT_H_

#include <optional>
#include <string>
#include <string_view>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

inline constexpr std::string_view kTxnDir = "txn";
inline constexpr std::string_view kQuarantineDir = "quarantaine";  // sic, CVMFS
inline constexpr std::string_view kCacheDbName = "cachedb";
inline constexpr std::string_view kCacheDbLockName = "lock_cachedb";
inline constexpr std::string_view kRunningMarkerName = "cachemgr.running";
inline constexpr std::string_view kManagerSocketName = "cachemgr";
inline constexpr std::string_view kManagerLockName = "lock_cachemgr";
inline constexpr std::string_view kManagerLogName = "cachemgr.log";
inline constexpr std::string_view kBreadcrumbPrefix = "cvmfschecksum.";
inline constexpr std::string_view kTxnTemplate = "fetchXXXXXX";

inline constexpr int kObjectMode = 0600;
// Private to the client's user, as CVMFS's cache: which paths were read
// (and their hashes, also of files the repository keeps 0600) is nobody
// else's business.
inline constexpr int kDirMode = 0700;

// "XX/<rest>" relative to the cache directory.
std::string ObjectName(const cvmfs::Digest& id);
// "<dir>/XX/<rest>".
std::string ObjectPath(const std::string& dir, const cvmfs::Digest& id);
// The two-hex-digit bucket directory name for 0..255.
std::string BucketName(int bucket);
// Parses a file name found in bucket `bucket_name`; nullopt for names that
// are not objects (foreign files are left alone).
std::optional<cvmfs::Digest> ParseObjectName(std::string_view bucket_name,
                                             std::string_view file_name);

// "<dir>/cvmfschecksum.<fqrn>"; InvalidArgument for an fqrn that is not a
// plain file name.
cvmfs::Result<std::string> BreadcrumbPath(const std::string& dir,
                                          const std::string& fqrn);

// Creates the directory itself, 00..ff, txn/ and quarantaine/.
// `private_dir`: the directory is made 0700 if it is open to others (an
// alien cache's mode is the site's: false).
cvmfs::Status CreateLayout(const std::string& dir, bool private_dir = true);

}  // namespace cache

#endif  // CACHE_CACHE_LAYOUT_H_
