// Repository: one Stratum 0 repository as the publisher sees it.
//
// Open() reads the server configuration, the storage and the keys. Publish()
// builds a new revision on top of the current one and commits it in the
// order that keeps the served revision intact at every moment:
//
//   data objects (pipeline) ─► catalogs, leaves first ─► certificate,
//   history, metainfo ─► reflog ─► signed manifest (the commit point)
//
// Every file is written under a temporary name and renamed. Until the
// manifest is renamed into place clients see the previous revision; a
// publish that fails or is killed leaves only unreferenced objects behind.
// A lock file in the spool directory keeps publishes one at a time; taking
// it removes the temporaries of killed publishes (stale_temporaries.h).
#ifndef PUBLISHER_REPOSITORY_H_
#define PUBLISHER_REPOSITORY_H_

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_store.h"
#include "cvmfs/progress.h"
#include "cvmfs/signature.h"
#include "cvmfs/system_paths.h"
#include "cvmfs/whitelist.h"
#include "publisher/catalog_tree.h"
#include "publisher/ingest_pipeline.h"
#include "publisher/server_config.h"

namespace publisher {

struct PublishOptions {
  std::string tag_name;         // -a
  std::string tag_description;  // -m
  // Set by the publish of a transaction; any other publish (ingest,
  // rollback) is refused while a transaction is open, because it would
  // change the revision the transaction's scratch area is based on.
  bool from_transaction = false;
  // Runs after the catalogs and the history are stored, right before the
  // manifest (the commit point) is written, with the new root catalog and
  // revision; a failure stops the publish.
  std::function<cvmfs::Status(const cvmfs::Digest& root, uint64_t revision)>
      before_commit;
  // Counts the files read into the pipeline and their bytes (a progress
  // line, cvmfs/progress.h); not owned, may be null.
  cvmfs::ProgressCounters* progress = nullptr;
  // publish -X (true) / -N (false): new files external or not in this
  // publish, whatever CVMFS_EXTERNAL_DATA says.
  std::optional<bool> external_data;
  // `cvmfs_server bundle`: every directory's bundles are computed, not only
  // those of the directories this publish changed (doc/format-bundles.md).
  bool bundle_all_directories = false;
};

struct PublishStats {
  uint64_t revision = 0;
  cvmfs::Digest root_hash;
  size_t catalogs_written = 0;
  uint64_t files = 0, bytes_in = 0, objects_stored = 0, objects_existing = 0,
           bytes_stored = 0;
  uint64_t objects_recognized = 0;  // reused through the content index
  // Bundles (publisher/bundle_writer.h): directories whose bundles were
  // computed, bundle objects stored anew and their bytes.
  uint64_t bundle_directories = 0, bundles_written = 0, bundle_bytes = 0;
  double bundle_seconds = 0;             // spent computing and writing them
  size_t stale_temporaries_removed = 0;  // left by killed publishes
  std::vector<std::string> warnings;     // e.g. the content index was unusable
};

// Key file names of a repository, as CVMFS lays them out.
struct KeyFiles {
  std::string master_key, master_pub, repo_key, repo_crt;
  static KeyFiles In(const std::string& keys_dir, const std::string& fqrn);
};

class Repository {
 public:
  static cvmfs::Result<std::unique_ptr<Repository>> Open(
      const cvmfs::SystemPaths& paths, const std::string& fqrn);
  ~Repository();

  const ServerConfig& config() const { return config_; }
  cvmfs::ObjectStore* store() { return store_.get(); }

  // The manifest clients see now (signature verified).
  cvmfs::Result<cvmfs::SignedManifest> CurrentManifest();
  cvmfs::Result<cvmfs::SignedWhitelist> CurrentWhitelist();

  // The ingest pipeline's options as the configuration sets them (no
  // content index, no progress counters).
  IngestOptions PipelineOptions() const;

  using BuildFn = std::function<cvmfs::Status(CatalogTree*, IngestPipeline*)>;
  // Builds and publishes a new revision; `build` changes the tree and feeds
  // file content through the pipeline.
  cvmfs::Result<PublishStats> Publish(const BuildFn& build,
                                      const PublishOptions& options);

  // Publishes the root catalog of an earlier revision as a new revision
  // (rollback): its content is re-committed with the new revision number.
  cvmfs::Result<PublishStats> PublishOldRoot(const cvmfs::Digest& old_root,
                                             const PublishOptions& options);

  // History database of the current revision, as a local temporary file.
  cvmfs::Result<std::unique_ptr<cvmfs::HistoryDb>> OpenHistory(bool writable);
  // Stores a changed history (tag add/remove) and re-signs the manifest.
  cvmfs::Status CommitHistory(std::unique_ptr<cvmfs::HistoryDb> history);

  // Re-signs the whitelist with the master key for `days` days.
  cvmfs::Status Resign(int days);

  // Re-signs the current manifest (same revision, root catalog and
  // history) with the repository key and certificate as they are now: new
  // certificate hash, timestamp, reflog hash (Y) and signature. For gc (it
  // prunes the reflog; checkers, CVMFS's too, compare the reflog with the
  // manifest's hash) and for `cvmfs_server resign -p` after a key change
  // (so the old signature is not checked: it may be the old key's). Takes
  // the lock.
  cvmfs::Status ResignManifest();

  // The repository's meta information (the JSON object M the manifest
  // names, `cvmfs_server update-repoinfo`): the current text, and a new
  // one stored and signed into the manifest (same revision). The new text
  // must be valid JSON (InvalidArgument otherwise, nothing changed).
  cvmfs::Result<std::string> Metainfo();
  cvmfs::Status SetMetainfo(const std::string& json);

  // Takes the repository's lock (spool/is_publishing.lock, flock: a dead
  // holder releases it) for the lifetime of this object; Busy names the
  // process holding it. Publish, PublishOldRoot and CommitHistory take it.
  cvmfs::Status Lock();

  // Makes a fresh private temporary directory in the spool area
  // (spool/tmp/work.<pid>.XXXXXX); the caller removes it.
  cvmfs::Result<std::string> MakeTempDir();

 private:
  friend cvmfs::Status Mkfs(const cvmfs::SystemPaths& paths,
                            const struct MkfsOptions& options);
  Repository(const cvmfs::SystemPaths& paths, ServerConfig config,
             std::unique_ptr<cvmfs::ObjectStore> store);
  cvmfs::Status LoadKeys();
  cvmfs::Status RefuseDuringTransaction(const PublishOptions& options);
  // NotSupported naming `what` on a publisher machine of a gateway.
  cvmfs::Status RefuseOnGateway(const std::string& what) const;
  cvmfs::Status RemoveStaleTemporaries();
  cvmfs::Result<PublishStats> CommitRevision(CatalogTree* tree,
                                             uint64_t revision,
                                             const PublishOptions& options);
  // The revision `built` again, with /.cvmfs/snapshots in line with `tags`
  // (CVMFS_VIRTUAL_DIR).
  cvmfs::Result<CommitResult> CommitVirtualDir(
      const CommitResult& built, const std::vector<cvmfs::Tag>& tags,
      uint64_t revision);
  // `also_catalogs`: root catalogs the reflog records besides the
  // manifest's (a revision tagged before /.cvmfs was refreshed).
  cvmfs::Status WriteManifest(
      cvmfs::Manifest manifest, const cvmfs::Digest* history,
      const std::vector<cvmfs::Digest>& also_catalogs = {});
  cvmfs::Result<cvmfs::Digest> StoreCompressed(const std::string& data,
                                               cvmfs::ObjectSuffix suffix);

  cvmfs::SystemPaths paths_;
  ServerConfig config_;
  std::unique_ptr<cvmfs::ObjectStore> store_;  // from OpenObjectStore
  std::optional<cvmfs::PrivateKey> repo_key_;
  std::optional<cvmfs::Certificate> certificate_;
  int lock_fd_ = -1;
  size_t stale_temporaries_removed_ = 0;
  std::string temp_dir_;
  std::string history_file_;  // file behind the last OpenHistory()
};

// Creates a repository: keys, configuration, storage, whitelist and
// revision 1 with an empty root directory.
struct MkfsOptions {
  std::string fqrn;
  std::string owner = "root";
  std::string stratum0_url;
  cvmfs::HashAlgorithm hash_algorithm = cvmfs::HashAlgorithm::kSha1;
  cvmfs::Compression compression = cvmfs::Compression::kZlib;
  bool garbage_collection = false;
  bool external_data = false;  // -X: CVMFS_EXTERNAL_DATA=true
  int whitelist_days = 30;
  // -k: take the keys (<fqrn>.masterkey, .pub, .key, .crt) from this
  // directory instead of generating them; they are copied into the keys
  // directory, whose own keys for <fqrn> must not differ from them.
  std::string import_keys_dir;
  // -s: the repository lives in S3 under the key prefix <fqrn>, per this
  // S3 configuration file (doc/s3.md); "" is local storage.
  std::string s3_config_file;
  // -u gw,<tmp>,<URL>: a publisher machine of the existing repository the
  // gateway at this API URL stores (doc/gateway.md, "Publisher machines"):
  // no storage and no signing keys; the keys directory of -k must hold
  // <fqrn>.pub, .crt and .gw, and the repository is read from stratum0_url.
  std::string gateway_url;
};
cvmfs::Status Mkfs(const cvmfs::SystemPaths& paths, const MkfsOptions& options);

// Checks that a repository name is a valid fully qualified repository name.
cvmfs::Status ValidateFqrn(const std::string& fqrn);

}  // namespace publisher

#endif  // PUBLISHER_REPOSITORY_H_
