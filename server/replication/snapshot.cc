#include "server/replication/snapshot.h"

#include <unistd.h>

#include <chrono>
#include <optional>
#include <set>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "cvmfs/time_format.h"
#include "server/replication/catalog_replicator.h"
#include "server/replication/object_copier.h"
#include "server/replication/source_verifier.h"
#include "server/replication/verified_download.h"

namespace replication {

using cvmfs::Digest;
using cvmfs::ObjectSuffix;
using cvmfs::Result;
using cvmfs::Status;

std::string LastSnapshotText(time_t t) {
  return cvmfs::FormatTime(t, cvmfs::kDateCommandUtcFormat,
                           cvmfs::TimeZone::kUtc) +
         "\n";
}

namespace {

// One snapshot: the state steps 3-8 share.
class SnapshotRun {
 public:
  SnapshotRun(cvmfs::Fetcher* fetcher, const SnapshotOptions& options,
              SnapshotDestination* destination)
      : fetcher_(fetcher),
        options_(options),
        destination_(destination),
        store_(destination->store()),
        copier_(fetcher, destination, options.workers, options.progress),
        catalogs_(fetcher, &copier_, destination, options.temp_dir) {}

  Status Run(const VerifiedSource& source, SnapshotStats* stats);

 private:
  Status CopyHistory(const Digest& history, const Digest& current_root,
                     size_t* tagged_roots);
  Result<std::vector<Digest>> TaggedRoots(
      const std::string& compressed_history);
  Status CopySmallObject(const Digest& digest, ObjectSuffix suffix,
                         const std::string& bytes);
  Status CopyReflog(const Digest& expected);
  Status Commit(const VerifiedSource& source);

  cvmfs::Fetcher* const fetcher_;
  const SnapshotOptions& options_;
  SnapshotDestination* const destination_;  // not owned
  cvmfs::ObjectStore* const store_;         // destination_'s
  ObjectCopier copier_;
  CatalogReplicator catalogs_;
  uint64_t extra_objects_ = 0,
           extra_bytes_ = 0;  // stored outside copier and walk
};

Status SnapshotRun::Run(const VerifiedSource& source, SnapshotStats* stats) {
  const cvmfs::Manifest& m = source.manifest;
  Status st = catalogs_.Replicate(m.root_catalog);
  if (st.ok() && m.history)
    st = CopyHistory(*m.history, m.root_catalog, &stats->tagged_roots);
  if (st.ok() && m.certificate)
    st = CopySmallObject(*m.certificate, ObjectSuffix::kCertificate,
                         source.certificate_object);
  ObjectCopier::Batch last;
  if (st.ok() && m.metainfo)
    copier_.Enqueue(&last, *m.metainfo, ObjectSuffix::kMetainfo);
  if (st.ok()) st = copier_.Wait(last);
  if (st.ok() && m.reflog) st = CopyReflog(*m.reflog);
  if (st.ok()) st = Commit(source);
  if (!st.ok()) {
    copier_.Abort(st);
    return st;
  }
  CopyCounters c = copier_.counters();
  stats->catalogs_copied = catalogs_.counters().copied;
  stats->catalogs_skipped = catalogs_.counters().skipped;
  stats->objects_copied =
      c.copied + catalogs_.counters().copied + extra_objects_;
  stats->bytes_copied = c.bytes + catalogs_.counters().bytes + extra_bytes_;
  stats->objects_present = c.already_present;
  return Status::Ok();
}

// The history database is stored after the catalog trees of all its tags, so
// that a replica's history never names a revision the replica lacks.
Status SnapshotRun::CopyHistory(const Digest& history,
                                const Digest& current_root,
                                size_t* tagged_roots) {
  const std::string name = cvmfs::ObjectPath(history, ObjectSuffix::kHistory);
  if (destination_->Has(name)) return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(
      auto file, DownloadVerified(fetcher_, destination_, name, history));
  CVMFS_ASSIGN_OR_RETURN(std::string compressed, cvmfs::ReadFile(file->path()));
  auto roots = TaggedRoots(compressed);
  if (!roots.ok()) return roots.status().Annotate("history database " + name);
  for (const Digest& root : *roots) {
    if (root == current_root) continue;
    ++*tagged_roots;
    CVMFS_RETURN_IF_ERROR(
        catalogs_.Replicate(root).Annotate("tagged revision"));
  }
  CVMFS_RETURN_IF_ERROR(file->Commit());
  ++extra_objects_;
  extra_bytes_ += compressed.size();
  return Status::Ok();
}

Result<std::vector<Digest>> SnapshotRun::TaggedRoots(
    const std::string& compressed_history) {
  std::string raw;
  CVMFS_RETURN_IF_ERROR(cvmfs::Decompress(compressed_history, &raw));
  const std::string db_file = options_.temp_dir + "/history.db";
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(db_file, raw, 0600));
  auto history = cvmfs::HistoryDb::OpenReadOnly(db_file);
  ::unlink(db_file.c_str());  // the open database keeps the file alive
  if (!history.ok()) return history.status();
  CVMFS_ASSIGN_OR_RETURN(auto tags, (*history)->List());
  std::set<Digest> seen;
  std::vector<Digest> roots;
  for (const cvmfs::Tag& tag : tags)
    if (seen.insert(tag.root_hash).second) roots.push_back(tag.root_hash);
  return roots;
}

// An object the verifier already downloaded (and checked by hash).
Status SnapshotRun::CopySmallObject(const Digest& digest, ObjectSuffix suffix,
                                    const std::string& bytes) {
  const std::string name = cvmfs::ObjectPath(digest, suffix);
  if (destination_->Has(name)) return Status::Ok();
  if (cvmfs::HashString(digest.algorithm, bytes) != digest)
    return Status::Corruption(name + " does not match its hash");
  CVMFS_RETURN_IF_ERROR(store_->Put(name, bytes));
  ++extra_objects_;
  extra_bytes_ += bytes.size();
  return Status::Ok();
}

// The reflog is a plain file (not compressed, not content-addressed); the
// signed manifest's Y line carries its hash.
Status SnapshotRun::CopyReflog(const Digest& expected) {
  const std::string name(cvmfs::kReflogName);
  CVMFS_ASSIGN_OR_RETURN(
      auto file, DownloadVerified(fetcher_, destination_, name, expected));
  uint64_t size = file->size();
  CVMFS_RETURN_IF_ERROR(file->Commit());
  extra_bytes_ += size;
  return Status::Ok();
}

Status SnapshotRun::Commit(const VerifiedSource& source) {
  CVMFS_RETURN_IF_ERROR(
      store_->Put(std::string(cvmfs::kWhitelistName), source.whitelist_file));
  // The commit point: from here on the replica serves the new revision.
  CVMFS_RETURN_IF_ERROR(
      store_->Put(std::string(cvmfs::kManifestName), source.manifest_file));
  extra_bytes_ += source.whitelist_file.size() + source.manifest_file.size();
  time_t now = options_.now ? options_.now : ::time(nullptr);
  return store_->Put(kLastSnapshotName, LastSnapshotText(now));
}

uint64_t StoredRevision(cvmfs::ObjectStore* store) {
  auto text = store->Get(std::string(cvmfs::kManifestName));
  if (!text.ok()) return 0;
  auto m = cvmfs::Manifest::Parse(*text);
  return m.ok() ? m->manifest.revision : 0;
}

}  // namespace

Result<SnapshotStats> RunSnapshot(
    cvmfs::Fetcher* fetcher, const std::vector<cvmfs::PublicKey>& master_keys,
    const SnapshotOptions& options) {
  auto start = std::chrono::steady_clock::now();
  const time_t now = options.now ? options.now : ::time(nullptr);
  CVMFS_RETURN_IF_ERROR(CheckReplicationAllowed(fetcher, options.fqrn));
  CVMFS_ASSIGN_OR_RETURN(
      VerifiedSource source,
      FetchVerifiedSource(fetcher, master_keys, options.fqrn, now));
  SnapshotStats stats;
  stats.revision = source.manifest.revision;
  stats.root_catalog = source.manifest.root_catalog;
  std::optional<LocalDestination> local;
  SnapshotDestination* destination = options.destination;
  if (!destination) destination = &local.emplace(options.storage_root);
  stats.previous_revision = StoredRevision(destination->store());
  {
    SnapshotRun run(fetcher, options, destination);
    Status st = run.Run(source, &stats);
    if (!st.ok())
      return st.Annotate(
          "snapshot of " + options.fqrn + " revision " +
          std::to_string(source.manifest.revision) +
          " failed; the replica still serves " +
          (stats.previous_revision
               ? "revision " + std::to_string(stats.previous_revision)
               : std::string("nothing")));
  }
  stats.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  return stats;
}

}  // namespace replication
