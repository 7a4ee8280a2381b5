#include "server/replication/catalog_replicator.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "cvmfs/catalog_walker.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/prefetch_list.h"
#include "server/replication/verified_download.h"

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

CatalogReplicator::CatalogReplicator(cvmfs::Fetcher* fetcher,
                                     ObjectCopier* copier,
                                     SnapshotDestination* destination,
                                     std::string temp_dir)
    : fetcher_(fetcher),
      copier_(copier),
      destination_(destination),
      temp_dir_(std::move(temp_dir)) {}

Status CatalogReplicator::Replicate(const cvmfs::Digest& root,
                                    const std::string& mountpoint) {
  const std::string name =
      cvmfs::ObjectPath(root, cvmfs::ObjectSuffix::kCatalog);
  if (destination_->Has(name)) {
    ++counters_.skipped;
    return Status::Ok();
  }
  const std::string what =
      "catalog " + name + " (" + (mountpoint.empty() ? "/" : mountpoint) + ")";
  auto download = DownloadVerified(fetcher_, destination_, name, root);
  if (!download.ok()) return download.status().Annotate(what);

  ObjectCopier::Batch batch;
  std::vector<cvmfs::NestedCatalogRef> nested;
  {
    CVMFS_ASSIGN_OR_RETURN(auto catalog, Inflate((*download)->path(), what));
    CVMFS_RETURN_IF_ERROR(CopyBundles(catalog.get(), &batch).Annotate(what));
    CVMFS_RETURN_IF_ERROR(QueueObjects(catalog.get(), &batch).Annotate(what));
    if (mountpoint.empty()) {  // recorded prefetch lists of the root catalog
      auto lists = cvmfs::PrefetchListsObjectOf(*catalog);
      if (!lists.ok()) return lists.status().Annotate(what);
      if (*lists) copier_->Enqueue(&batch, **lists, cvmfs::ObjectSuffix::kNone);
    }
    auto refs = catalog->NestedCatalogs();
    if (!refs.ok()) return refs.status().Annotate(what);
    nested = std::move(refs).value();
  }
  for (const auto& ref : nested)
    CVMFS_RETURN_IF_ERROR(Replicate(ref.hash, ref.path));
  CVMFS_RETURN_IF_ERROR(copier_->Wait(batch));
  CVMFS_RETURN_IF_ERROR((*download)->Commit());
  ++counters_.copied;
  counters_.bytes += (*download)->size();
  return Status::Ok();
}

// Streams the zlib object into an SQLite file and opens it. The file is
// unlinked right away: the open database keeps it alive until closed.
Result<std::unique_ptr<cvmfs::Catalog>> CatalogReplicator::Inflate(
    const std::string& compressed_file, const std::string& what) {
  cvmfs::UniqueFd in(::open(compressed_file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) return Status::FromErrno(errno, "open " + compressed_file);
  const std::string db_file =
      temp_dir_ + "/catalog." + std::to_string(++inflated_) + ".db";
  cvmfs::UniqueFd out(
      ::open(db_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600));
  if (!out.valid()) return Status::FromErrno(errno, "create " + db_file);
  cvmfs::Inflater inflater;
  auto sink = [&](const char* data, size_t size) {
    return cvmfs::WriteAll(out.get(), data, size, db_file);
  };
  std::string buf(1 << 16, '\0');
  Status st;
  while (st.ok()) {
    auto n = cvmfs::ReadFull(in.get(), buf.data(), buf.size(), compressed_file);
    if (!n.ok()) st = n.status();
    if (!st.ok() || *n == 0) break;
    st = inflater.Feed(buf.data(), *n, sink);
  }
  if (st.ok()) st = inflater.Finish();
  out.Reset();
  auto catalog = st.ok() ? cvmfs::Catalog::Open(db_file)
                         : Result<std::unique_ptr<cvmfs::Catalog>>(st);
  ::unlink(db_file.c_str());
  if (!catalog.ok()) return catalog.status().Annotate(what);
  return catalog;
}

// The catalog's bundles first, all in parallel, and waited for: then the
// walk below finds their members done and fetches only the other objects,
// one request per bundle instead of one per small file.
Status CatalogReplicator::CopyBundles(cvmfs::Catalog* catalog,
                                      ObjectCopier::Batch* batch) {
  CVMFS_ASSIGN_OR_RETURN(auto bundles, catalog->AllBundles());
  if (bundles.empty()) return Status::Ok();
  ObjectCopier::Batch first;
  for (const cvmfs::BundleRef& b : bundles)
    copier_->EnqueueBundle(&first, b.hash);
  CVMFS_RETURN_IF_ERROR(copier_->Wait(first));
  // The catalog waits for them too (they are done: this only records them).
  for (const cvmfs::BundleRef& b : bundles)
    copier_->EnqueueBundle(batch, b.hash);
  return Status::Ok();
}

Status CatalogReplicator::QueueObjects(cvmfs::Catalog* catalog,
                                       ObjectCopier::Batch* batch) {
  return cvmfs::CatalogWalker::ForEachPath(
      catalog,
      [&](const std::string& path,
          const cvmfs::DirectoryEntry& entry) -> Status {
        if (!entry.IsRegular() || entry.external) return Status::Ok();
        if (entry.content_hash && !entry.content_hash->IsNull())
          copier_->Enqueue(batch, *entry.content_hash,
                           cvmfs::ObjectSuffix::kNone);
        if (!entry.chunked) return Status::Ok();
        CVMFS_ASSIGN_OR_RETURN(auto chunks, catalog->Chunks(path));
        for (const auto& chunk : chunks)
          copier_->Enqueue(batch, chunk.hash, cvmfs::ObjectSuffix::kPartial);
        return Status::Ok();
      });
}

}  // namespace replication
