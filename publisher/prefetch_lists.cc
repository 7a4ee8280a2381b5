#include "publisher/prefetch_lists.h"

#include <algorithm>
#include <map>
#include <memory>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/catalog_walker.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/sqlite_db.h"

namespace publisher {

using cvmfs::Digest;
using cvmfs::PrefetchFile;
using cvmfs::PrefetchList;
using cvmfs::Result;
using cvmfs::Status;

namespace {

// A private temporary directory in the spool area, removed with the scope.
class ScratchDir {
 public:
  static Result<ScratchDir> In(Repository* repo) {
    CVMFS_ASSIGN_OR_RETURN(std::string dir, repo->MakeTempDir());
    return ScratchDir(std::move(dir));
  }
  ScratchDir(ScratchDir&& o) noexcept : dir_(std::move(o.dir_)) {
    o.dir_.clear();
  }
  ~ScratchDir() {
    if (!dir_.empty()) (void)cvmfs::RemoveTree(dir_);
  }
  const std::string& path() const { return dir_; }

 private:
  explicit ScratchDir(std::string dir) : dir_(std::move(dir)) {}
  std::string dir_;
};

// Looks paths up in one revision, loading nested catalogs as needed.
class RevisionReader {
 public:
  RevisionReader(cvmfs::ObjectStore* store, const std::string& temp_dir,
                 const Digest& root)
      : walker_(store, temp_dir), root_hash_(root) {}

  cvmfs::Catalog* root() { return Loaded("", root_hash_); }
  Status root_status() const { return root_status_; }

  // The list entry for `path`: NotFound when it is missing or not a
  // regular file.
  Result<PrefetchFile> Resolve(const std::string& path);

 private:
  cvmfs::Catalog* Loaded(const std::string& mountpoint, const Digest& hash);
  Result<cvmfs::Catalog*> CatalogFor(const std::string& path);

  cvmfs::CatalogWalker walker_;
  Digest root_hash_;
  Status root_status_;
  std::map<std::string, std::unique_ptr<cvmfs::Catalog>>
      catalogs_;  // by mountpoint
};

cvmfs::Catalog* RevisionReader::Loaded(const std::string& mountpoint,
                                       const Digest& hash) {
  auto it = catalogs_.find(mountpoint);
  if (it != catalogs_.end()) return it->second.get();
  auto loaded = walker_.Load(hash);
  if (!loaded.ok()) {
    if (mountpoint.empty()) root_status_ = loaded.status();
    return nullptr;
  }
  return catalogs_.emplace(mountpoint, std::move(loaded).value())
      .first->second.get();
}

// The deepest catalog whose mountpoint is `path` or one of its ancestors.
Result<cvmfs::Catalog*> RevisionReader::CatalogFor(const std::string& path) {
  cvmfs::Catalog* catalog = root();
  if (!catalog) return root_status_.Annotate("root catalog");
  for (size_t pos = 0;;) {
    const size_t slash = path.find('/', pos + 1);
    const std::string prefix = path.substr(0, slash);
    CVMFS_ASSIGN_OR_RETURN(auto ref, catalog->FindNested(prefix));
    if (ref) {
      cvmfs::Catalog* nested = Loaded(prefix, ref->hash);
      if (!nested)
        return Status::Corruption("cannot load the nested catalog of " +
                                  prefix);
      catalog = nested;
    }
    if (slash == std::string::npos) break;
    pos = slash;
  }
  return catalog;
}

Result<PrefetchFile> RevisionReader::Resolve(const std::string& path) {
  CVMFS_ASSIGN_OR_RETURN(cvmfs::Catalog * catalog, CatalogFor(path));
  CVMFS_ASSIGN_OR_RETURN(auto entry, catalog->Lookup(path));
  if (!entry) return Status::NotFound(path + " does not exist");
  if (!entry->IsRegular())
    return Status::NotFound(path + " is not a regular file");
  PrefetchFile f;
  f.path = path;
  f.compression = entry->compression;
  f.size = entry->size;
  if (!entry->chunked) {
    if (!entry->content_hash)
      return Status::Corruption(path + " has no content hash");
    f.hash = *entry->content_hash;
    return f;
  }
  CVMFS_ASSIGN_OR_RETURN(auto chunks, catalog->Chunks(path));
  if (chunks.empty())
    return Status::Corruption(path + " is chunked but has no chunks");
  for (const cvmfs::FileChunk& c : chunks) f.chunks.push_back({c.hash, c.size});
  return f;
}

// The list set `root` references (empty when none).
Result<std::vector<PrefetchList>> ListsOf(cvmfs::ObjectStore* store,
                                          cvmfs::Catalog* root) {
  CVMFS_ASSIGN_OR_RETURN(std::optional<Digest> ref,
                         cvmfs::PrefetchListsObjectOf(*root));
  if (!ref) return std::vector<PrefetchList>();
  auto text =
      cvmfs::ReadVerifiedObject(store, *ref, cvmfs::ObjectSuffix::kNone);
  if (!text.ok())
    return text.status().Annotate("prefetch list set " + ref->ToString());
  auto lists = cvmfs::ParsePrefetchLists(*text);
  if (!lists.ok())
    return lists.status().Annotate("prefetch list set " + ref->ToString());
  return lists;
}

// Everything one change needs: the lock (unless only reading), the current
// root and a reader.
struct Session {
  ScratchDir scratch;
  Digest root;
  std::unique_ptr<RevisionReader> reader;
  std::vector<PrefetchList> lists;
  // Set when the root names a list set object the store no longer has
  // (removed by a garbage collection that did not know it): changes then
  // start from no lists, and say so.
  std::string missing_lists;
};

Result<Session> OpenSession(Repository* repo, bool lock) {
  if (lock) CVMFS_RETURN_IF_ERROR(repo->Lock());
  CVMFS_ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::In(repo));
  CVMFS_ASSIGN_OR_RETURN(auto manifest, repo->CurrentManifest());
  Session s{
      std::move(scratch), manifest.manifest.root_catalog, nullptr, {}, {}};
  s.reader =
      std::make_unique<RevisionReader>(repo->store(), s.scratch.path(), s.root);
  cvmfs::Catalog* root = s.reader->root();
  if (!root)
    return s.reader->root_status().Annotate("root catalog of " +
                                            repo->config().fqrn);
  auto lists = ListsOf(repo->store(), root);
  if (lists.ok()) {
    s.lists = std::move(lists).value();
  } else if (lists.status().IsNotFound()) {
    s.missing_lists =
        lists.status().message() +
        " (removed by a garbage collection?); the lists it held are lost";
  } else {
    return lists.status();
  }
  return s;
}

// `paths` resolved in order; what cannot be listed becomes a warning.
Result<PrefetchList> ResolveList(RevisionReader* reader,
                                 const std::string& name,
                                 const std::vector<std::string>& paths,
                                 std::vector<std::string>* warnings) {
  PrefetchList list{name, {}};
  for (const std::string& path : paths) {
    auto file = reader->Resolve(path);
    if (file.ok()) {
      list.files.push_back(std::move(file).value());
    } else if (file.status().IsNotFound()) {
      warnings->push_back("list " + name + ": " + cvmfs::EscapeListPath(path) +
                          " left out (" + file.status().message() + ")");
    } else {
      return file.status();
    }
  }
  if (list.files.empty())
    return Status::InvalidArgument(
        "prefetch list " + name +
        ": none of its paths is a regular file of the current "
        "revision");
  return list;
}

// Stores `lists` (or, when empty, nothing) and publishes the current root
// with the property naming them (or without the property).
Result<PublishStats> PublishLists(Repository* repo, Session* s,
                                  const std::vector<PrefetchList>& lists,
                                  const PublishOptions& options) {
  const std::string property(cvmfs::kPrefetchListsProperty);
  std::string sql = "DELETE FROM properties WHERE key = '" + property + "';";
  if (!lists.empty()) {
    CVMFS_ASSIGN_OR_RETURN(
        const Digest digest,
        cvmfs::StoreObject(repo->store(), cvmfs::SerializePrefetchLists(lists),
                           cvmfs::ObjectSuffix::kNone,
                           repo->config().hash_algorithm));
    sql = "INSERT OR REPLACE INTO properties (key, value) VALUES ('" +
          property + "', '" + digest.ToString() + "');";
  }
  // R': the current root catalog with only the property changed.
  CVMFS_ASSIGN_OR_RETURN(std::string raw, cvmfs::ReadVerifiedObject(
                                              repo->store(), s->root,
                                              cvmfs::ObjectSuffix::kCatalog));
  const std::string file = s->scratch.path() + "/root-with-lists.db";
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(file, raw, 0600));
  {
    CVMFS_ASSIGN_OR_RETURN(
        auto db,
        cvmfs::SqliteDb::Open(file, cvmfs::SqliteDb::OpenMode::kReadWrite));
    CVMFS_RETURN_IF_ERROR(db->Exec(sql).Annotate(file));
  }
  CVMFS_ASSIGN_OR_RETURN(std::string changed, cvmfs::ReadFile(file));
  CVMFS_ASSIGN_OR_RETURN(
      const Digest root,
      cvmfs::StoreObject(repo->store(), changed, cvmfs::ObjectSuffix::kCatalog,
                         repo->config().hash_algorithm));
  return repo->PublishOldRoot(root, options);
}

Result<PrefetchListChange> Publish(Repository* repo, Session* s,
                                   std::vector<PrefetchList> lists,
                                   std::vector<std::string> warnings,
                                   const PublishOptions& options) {
  PrefetchListChange change;
  if (!s->missing_lists.empty())
    warnings.insert(warnings.begin(), s->missing_lists);
  CVMFS_ASSIGN_OR_RETURN(change.stats, PublishLists(repo, s, lists, options));
  change.lists = std::move(lists);
  change.warnings = std::move(warnings);
  return change;
}

std::vector<PrefetchList>::iterator Find(std::vector<PrefetchList>* lists,
                                         const std::string& name) {
  return std::find_if(lists->begin(), lists->end(),
                      [&](const PrefetchList& l) { return l.name == name; });
}

}  // namespace

Result<std::vector<PrefetchList>> CurrentPrefetchLists(Repository* repo) {
  CVMFS_ASSIGN_OR_RETURN(Session s, OpenSession(repo, /*lock=*/false));
  if (!s.missing_lists.empty()) return Status::NotFound(s.missing_lists);
  return std::move(s.lists);
}

Result<PrefetchListChange> AddPrefetchList(
    Repository* repo, const std::string& name,
    const std::vector<std::string>& paths, const PublishOptions& options) {
  CVMFS_RETURN_IF_ERROR(cvmfs::ValidatePrefetchListName(name));
  CVMFS_ASSIGN_OR_RETURN(Session s, OpenSession(repo, /*lock=*/true));
  std::vector<std::string> warnings;
  CVMFS_ASSIGN_OR_RETURN(PrefetchList list,
                         ResolveList(s.reader.get(), name, paths, &warnings));
  std::vector<PrefetchList> lists = s.lists;
  auto it = Find(&lists, name);
  if (it != lists.end()) {
    *it = std::move(list);
  } else {
    lists.push_back(std::move(list));
  }
  return Publish(repo, &s, std::move(lists), std::move(warnings), options);
}

Result<PrefetchListChange> RemovePrefetchList(Repository* repo,
                                              const std::string& name,
                                              const PublishOptions& options) {
  CVMFS_ASSIGN_OR_RETURN(Session s, OpenSession(repo, /*lock=*/true));
  std::vector<PrefetchList> lists = s.lists;
  auto it = Find(&lists, name);
  // With the list set object gone, any remove drops the dangling reference.
  if (it == lists.end() && s.missing_lists.empty())
    return Status::NotFound("repository " + repo->config().fqrn +
                            " has no prefetch list '" + name + "'");
  if (it != lists.end()) lists.erase(it);
  return Publish(repo, &s, std::move(lists), {}, options);
}

Result<PrefetchListChange> RefreshPrefetchLists(Repository* repo,
                                                const PublishOptions& options) {
  CVMFS_ASSIGN_OR_RETURN(Session s, OpenSession(repo, /*lock=*/true));
  if (s.lists.empty())
    return Status::NotFound("repository " + repo->config().fqrn +
                            " has no prefetch lists");
  std::vector<PrefetchList> lists;
  std::vector<std::string> warnings;
  for (const PrefetchList& old : s.lists) {
    std::vector<std::string> paths;
    for (const PrefetchFile& f : old.files) paths.push_back(f.path);
    CVMFS_ASSIGN_OR_RETURN(
        PrefetchList list,
        ResolveList(s.reader.get(), old.name, paths, &warnings));
    lists.push_back(std::move(list));
  }
  return Publish(repo, &s, std::move(lists), std::move(warnings), options);
}

Result<size_t> CountStaleFiles(Repository* repo, const PrefetchList& list) {
  CVMFS_ASSIGN_OR_RETURN(ScratchDir scratch, ScratchDir::In(repo));
  CVMFS_ASSIGN_OR_RETURN(auto manifest, repo->CurrentManifest());
  RevisionReader reader(repo->store(), scratch.path(),
                        manifest.manifest.root_catalog);
  size_t stale = 0;
  for (const PrefetchFile& f : list.files) {
    auto now = reader.Resolve(f.path);
    if (now.ok() && *now == f) continue;
    if (!now.ok() && !now.status().IsNotFound()) return now.status();
    ++stale;
  }
  return stale;
}

}  // namespace publisher
