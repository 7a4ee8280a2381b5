#include "publisher/reflog_repair.h"

#include <ctime>
#include <optional>
#include <set>
#include <utility>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/catalog/reflog_db.h"
#include "cvmfs/catalog_walker.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "publisher/gc.h"

namespace publisher {
namespace {

using cvmfs::Digest;
using cvmfs::ObjectSuffix;
using cvmfs::Result;
using cvmfs::Status;

bool Stored(cvmfs::ObjectStore* store, const Digest& d, ObjectSuffix s) {
  return store->Exists(cvmfs::ObjectPath(d, s));
}

// Why the stored reflog cannot be trusted as it is; nullopt if it can.
std::optional<std::string> ReflogProblem(cvmfs::ObjectStore* store,
                                         const std::string& temp_dir) {
  auto bytes = store->Get(std::string(cvmfs::kReflogName));
  if (!bytes.ok())
    return "the reflog is missing (" + bytes.status().ToString() + ")";
  const std::string file = temp_dir + "/reflog.check.db";
  if (!cvmfs::WriteFileAtomic(file, *bytes, 0600).ok())
    return "the reflog cannot be copied";
  auto db = cvmfs::ReflogDb::OpenReadOnly(file);
  if (!db.ok() || !(*db)->List().ok())
    return "the reflog is not a readable reflog database";
  return std::nullopt;
}

// Every root catalog, history, certificate and metainfo the repository
// references, oldest revisions included, that is still stored.
Status Rebuild(Repository* repo, const cvmfs::Manifest& m,
               const std::string& temp_dir, ReflogRepair* out) {
  cvmfs::ObjectStore* store = repo->store();
  cvmfs::CatalogWalker loader(store, temp_dir);
  const std::string file = temp_dir + "/reflog.rebuilt.db";
  CVMFS_ASSIGN_OR_RETURN(auto reflog, cvmfs::ReflogDb::Create(file, m.fqrn));
  const int64_t now = static_cast<int64_t>(::time(nullptr));
  std::set<Digest> roots_seen;
  // A root catalog and the revisions before it.
  auto add_chain = [&](Digest root) -> Status {
    while (roots_seen.insert(root).second &&
           Stored(store, root, ObjectSuffix::kCatalog)) {
      auto catalog = loader.Load(root);
      if (!catalog.ok()) break;  // unreadable: the chain ends here
      CVMFS_RETURN_IF_ERROR(
          reflog->AddCatalog(root, (*catalog)->last_modified()));
      ++out->entries;
      std::optional<Digest> prev = (*catalog)->previous_revision();
      if (!prev) break;
      root = *prev;
    }
    return Status::Ok();
  };
  CVMFS_RETURN_IF_ERROR(add_chain(m.root_catalog));
  // Histories (each names the one before) and the tags they hold.
  std::optional<Digest> history = m.history;
  std::set<Digest> histories_seen;
  while (history && histories_seen.insert(*history).second &&
         Stored(store, *history, ObjectSuffix::kHistory)) {
    auto db = OpenStoredHistory(store, *history, temp_dir);
    if (!db.ok()) break;
    CVMFS_RETURN_IF_ERROR(reflog->AddHistory(*history, now));
    ++out->entries;
    CVMFS_ASSIGN_OR_RETURN(auto tags, (*db)->List());
    for (const auto& tag : tags)
      CVMFS_RETURN_IF_ERROR(add_chain(tag.root_hash));
    CVMFS_ASSIGN_OR_RETURN(history, (*db)->GetPreviousRevision());
  }
  if (m.certificate &&
      Stored(store, *m.certificate, ObjectSuffix::kCertificate)) {
    CVMFS_RETURN_IF_ERROR(reflog->AddCertificate(*m.certificate, now));
    ++out->entries;
  }
  if (m.metainfo && Stored(store, *m.metainfo, ObjectSuffix::kMetainfo)) {
    CVMFS_RETURN_IF_ERROR(reflog->AddMetainfo(*m.metainfo, now));
    ++out->entries;
  }
  CVMFS_RETURN_IF_ERROR(reflog->Close());
  reflog.reset();
  CVMFS_ASSIGN_OR_RETURN(std::string bytes, cvmfs::ReadFile(file));
  return store->Put(std::string(cvmfs::kReflogName), bytes)
      .Annotate("storing the rebuilt reflog");
}

}  // namespace

Result<ReflogRepair> RepairReflog(Repository* repo) {
  CVMFS_RETURN_IF_ERROR(repo->Lock());
  CVMFS_ASSIGN_OR_RETURN(cvmfs::SignedManifest current,
                         repo->CurrentManifest());
  const cvmfs::Manifest& m = current.manifest;
  CVMFS_ASSIGN_OR_RETURN(std::string temp_dir, repo->MakeTempDir());
  cvmfs::ScopedRemoveTree cleanup(temp_dir);
  ReflogRepair out;
  if (auto problem = ReflogProblem(repo->store(), temp_dir)) {
    out.reason = *problem;
    CVMFS_RETURN_IF_ERROR(Rebuild(repo, m, temp_dir, &out));
    out.rebuilt = true;
  } else {
    auto bytes = repo->store()->Get(std::string(cvmfs::kReflogName));
    CVMFS_RETURN_IF_ERROR(bytes.status());
    const Digest actual = cvmfs::HashString(
        m.reflog ? m.reflog->algorithm : m.root_catalog.algorithm, *bytes);
    if (m.reflog && *m.reflog == actual) return out;  // nothing to repair
    out.reason = m.reflog ? "the manifest names another reflog hash"
                          : "the manifest names no reflog";
  }
  CVMFS_RETURN_IF_ERROR(repo->ResignManifest());
  out.resigned = true;
  return out;
}

}  // namespace publisher
