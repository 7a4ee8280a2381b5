// Import: take over an existing Stratum 0 storage in place (`cvmfs_server
// import`, doc/migration.md), as CVMFS 2.12's import does.
//
// The storage (a CVMFS or our own repository) and its keys stay what they
// are; Import writes what this machine needs to publish into it:
//
//   keys  <keys dir>/<fqrn>.{pub,key,crt[,masterkey]} copied into
//         etc/cvmfs/keys (an existing, different key file there is refused,
//         never overwritten)
//   config etc/cvmfs/repositories.d/<fqrn>/server.conf, as mkfs writes it,
//         with what the manifest says: hash algorithm (of the root catalog),
//         garbage-collectable (G), TTL (D)
//   spool  var/spool/cvmfs/<fqrn>/tmp (the transaction mounts are the
//         caller's: cvmfs_server runs SetUpTransactions as after mkfs)
//
// The storage is a local directory or a key prefix in an S3 bucket (-u
// S3,<tmp>,<prefix>@<S3 configuration file>, doc/s3.md; CVMFS's import
// takes local storage only): another publisher machine takes over a
// repository on S3 with its keys alone.
//
// Before anything is written, Inspect checks that the storage is complete
// (.cvmfspublished, and for a directory data/00..ff, data/txn) and that the
// keys belong to it:
// the certificate named by the manifest is the key directory's, the
// manifest is signed by the repository key, the whitelist by the master key
// (.pub) and lists the certificate and has not expired (unless it is to be
// re-signed), the master key matches .pub. It reads the history (tags) and
// checks the reflog: it must be readable, and a hash other than the
// manifest's (Y; gc rewrites the reflog only) and a missing entry for the
// current root catalog, history, certificate or a tagged root catalog are
// warnings (gc walks the history and the previous revisions, not the
// reflog). The next publish continues the revision
// numbers, the history and the reflog.
//
// A failure after the first write removes what Import wrote (configuration,
// spool, copied keys); the storage is changed only by the requested
// whitelist re-signing (-r) and replication marker (-m), which come last.
#ifndef PUBLISHER_IMPORT_H_
#define PUBLISHER_IMPORT_H_

#include <cstdint>
#include <string>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace publisher {

struct ImportOptions {
  std::string fqrn;
  std::string owner = "root";  // -o
  std::string stratum0_url;    // -w; default http://localhost/cvmfs/<fqrn>
  std::string storage_dir;     // from -u local,<tmp>,<dir>; default srv/...
  // From -u S3,<tmp>,<prefix>@<file>: the S3 configuration file and the
  // repository's key prefix (storage_dir unused). stratum0_url is then the
  // bucket's URL (-w, required), to which the prefix is appended.
  std::string s3_config_file;
  std::string s3_prefix;
  std::string keys_dir;             // -k; default etc/cvmfs/keys
  bool recreate_whitelist = false;  // -r: re-sign with the master key
  int whitelist_days = 30;
  bool replicable = false;  // -m: write .cvmfs_master_replica
};

// What Inspect found (and Import adopted).
struct ImportReport {
  uint64_t revision = 0;
  cvmfs::HashAlgorithm hash_algorithm = cvmfs::HashAlgorithm::kSha1;
  bool garbage_collectable = false;
  uint64_t ttl = 0;
  size_t tags = 0;                 // named tags in the history
  size_t reflog_entries = 0;       // 0: no reflog
  bool whitelist_expired = false;  // only possible with recreate_whitelist
  std::vector<std::string> warnings;
};

// The options with their defaults filled in from `paths` (for S3: the
// repository's URL from the bucket's; InvalidArgument without -w).
cvmfs::Result<ImportOptions> WithDefaults(const cvmfs::SystemPaths& paths,
                                          ImportOptions options);

// Where the storage is, for messages: its directory or "S3 <prefix>@<file>".
std::string StorageName(const ImportOptions& options);

// Checks everything Import needs; writes nothing.
cvmfs::Result<ImportReport> InspectImport(const cvmfs::SystemPaths& paths,
                                          const ImportOptions& options);

// InspectImport, then adopts the repository (see the top of this file).
cvmfs::Result<ImportReport> Import(const cvmfs::SystemPaths& paths,
                                   const ImportOptions& options);

}  // namespace publisher

#endif  // PUBLISHER_IMPORT_H_
