#include "client/catalog_set.h"

#include <fcntl.h>

namespace cvmfs::client {

namespace {

// SQLite's page cache per connection (its default: 2 MiB). A catalog has a
// connection per thread that queries it at once, and a mount may attach
// hundreds of catalogs; the file's pages stay in the kernel's page cache
// anyway, so a small cache costs a pread per miss, not a disk read. It
// holds the B-tree's inner pages, which every lookup walks.
constexpr int kCatalogPageCacheKiB = 512;

Result<std::unique_ptr<Catalog>> OpenCatalog(const std::string& file) {
  CVMFS_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(file));
  CVMFS_RETURN_IF_ERROR(catalog->LimitPageCache(kCatalogPageCacheKiB));
  return catalog;
}

}  // namespace

MountedCatalog::Lease::Lease(MountedCatalog* c) : owner(c) {
  {
    cvmfs::MutexLock lock(&c->pool_mu_);
    if (!c->pool_.empty()) {
      catalog = std::move(c->pool_.back());
      c->pool_.pop_back();
      return;
    }
  }
  // Opening an immutable SQLite file that is already in the page cache
  // costs tens of microseconds; the pool grows to the number of threads
  // that query this catalog at once.
  auto opened = OpenCatalog(c->file_);
  if (opened.ok()) catalog = std::move(opened).value();
}

MountedCatalog::Lease::~Lease() {
  if (!catalog) return;
  cvmfs::MutexLock lock(&owner->pool_mu_);
  owner->pool_.push_back(std::move(catalog));
}

const MountedCatalog::Transition* MountedCatalog::NestedAt(
    const std::string& path) const {
  auto it = nested_.find(path);
  return it == nested_.end() ? nullptr : &it->second;
}

std::string MountedCatalog::CatalogPath(const std::string& path) const {
  if (root_prefix_ == mountpoint_) return path;
  return root_prefix_ + path.substr(mountpoint_.size());
}

Result<std::optional<DirectoryEntry>> MountedCatalog::Lookup(
    const std::string& path) {
  return With([&](Catalog& c) { return c.Lookup(CatalogPath(path)); });
}

Result<std::vector<DirectoryEntry>> MountedCatalog::List(
    const std::string& dir) {
  return With([&](Catalog& c) { return c.List(CatalogPath(dir)); });
}

Result<std::vector<FileChunk>> MountedCatalog::Chunks(const std::string& path) {
  return With([&](Catalog& c) { return c.Chunks(CatalogPath(path)); });
}

Result<std::optional<MountedCatalog::Located>> MountedCatalog::Locate(
    int64_t rowid) {
  return With([&](Catalog& c) -> Result<std::optional<Located>> {
    CVMFS_ASSIGN_OR_RETURN(std::optional<CatalogRow> row, c.RowById(rowid));
    if (!row) return std::optional<Located>();
    Located out;
    const PathHash root_key = HashPath(root_prefix_);
    // Names from the row up to (not including) this catalog's root.
    std::vector<std::string> names;
    PathHash up = row->parent;
    if (row->key != root_key) names.push_back(row->entry.name);
    // Paths are at most PATH_MAX long, so this many levels at most.
    constexpr size_t kMaxDepth = 4096;
    while (row->key != root_key && up != root_key) {
      if (names.size() > kMaxDepth)
        return Status::Corruption("catalog " + hash_.ToString() +
                                  ": parent loop above row " +
                                  std::to_string(rowid));
      CVMFS_ASSIGN_OR_RETURN(std::optional<CatalogRow> parent, c.RowByKey(up));
      if (!parent)
        return Status::Corruption("catalog " + hash_.ToString() + ": row " +
                                  std::to_string(rowid) + " has no parent row");
      if (out.parent_rowid == 0) out.parent_rowid = parent->entry.rowid;
      names.push_back(std::move(parent->entry.name));
      up = parent->parent;
    }
    out.path = mountpoint_;
    for (auto it = names.rbegin(); it != names.rend(); ++it)
      out.path.append("/").append(*it);
    out.entry = std::move(row->entry);
    return std::optional<Located>(std::move(out));
  });
}

Result<std::unique_ptr<CatalogSet>> CatalogSet::Mount(
    ObjectFetcher* objects, cache::PosixCache* cache, const Digest& root_hash,
    std::atomic<uint64_t>* next_inode) {
  std::unique_ptr<CatalogSet> set(new CatalogSet(objects, cache, next_inode));
  CVMFS_ASSIGN_OR_RETURN(set->root_, set->Attach("", "", root_hash, nullptr));
  cvmfs::MutexLock lock(&set->mu_);
  set->by_base_[set->root_->inode_base()] = set->root_.get();
  return set;
}

CatalogSet::~CatalogSet() {
  std::vector<Digest> pinned;
  for (auto& [path, child] : children_) pinned.push_back(child->hash_);
  if (root_) pinned.push_back(root_->hash_);
  children_.clear();
  root_.reset();
  for (const Digest& d : pinned) (void)cache_->Unpin(d);
}

Result<std::unique_ptr<MountedCatalog>> CatalogSet::Attach(
    const std::string& mountpoint, const std::string& root_prefix,
    const Digest& hash, MountedCatalog* parent) {
  ObjectRequest request;
  request.digest = hash;
  request.suffix = ObjectSuffix::kCatalog;
  request.type = cache::ObjectType::kCatalog;
  request.description = mountpoint.empty() ? "/" : mountpoint;
  auto handle = objects_->OpenReferenced(request);
  if (!handle.ok())
    return handle.status().Annotate("catalog " + request.description + " (" +
                                    hash.ToString() + ")");
  auto mounted = std::make_unique<MountedCatalog>();
  mounted->handle_ = std::move(handle).value();
  // Lookups touch the catalog all over: read it in one sequential sweep
  // (asynchronously) rather than page by page at random.
  (void)::posix_fadvise(mounted->handle_.fd(), 0, 0, POSIX_FADV_WILLNEED);
  mounted->file_ = "/proc/self/fd/" + std::to_string(mounted->handle_.fd());
  mounted->mountpoint_ = mountpoint;
  mounted->root_prefix_ = root_prefix;
  mounted->hash_ = hash;
  mounted->parent_ = parent;

  auto catalog = OpenCatalog(mounted->file_);
  if (!catalog.ok()) {
    // A cached catalog that SQLite cannot read is damaged: drop it so the
    // next attempt downloads a fresh copy.
    mounted->handle_ = cache::CacheHandle();
    (void)cache_->Evict(hash);
    return catalog.status().Annotate("catalog " + request.description);
  }
  Catalog& c = **catalog;
  if (c.root_prefix() != root_prefix)
    return Status::Corruption("catalog " + hash.ToString() + " is for '" +
                              c.root_prefix() + "', expected '" + root_prefix +
                              "'");
  CVMFS_ASSIGN_OR_RETURN(int64_t max_rowid, c.MaxRowId());
  CVMFS_ASSIGN_OR_RETURN(auto nested, c.NestedCatalogs());
  CVMFS_ASSIGN_OR_RETURN(auto bind, c.BindMountpoints());
  CVMFS_ASSIGN_OR_RETURN(mounted->counters_, c.ReadCounters());
  // Rows name catalog paths; the set is walked by mount path.
  auto plant = [&](const NestedCatalogRef& ref, std::string prefix) {
    if (ref.path.size() <= root_prefix.size() ||
        ref.path.compare(0, root_prefix.size(), root_prefix) != 0 ||
        ref.path[root_prefix.size()] != '/')
      return Status::Corruption("catalog " + hash.ToString() +
                                " lists a catalog at '" + ref.path +
                                "' outside '" + root_prefix + "'");
    MountedCatalog::Transition t{ref, std::move(prefix)};
    t.ref.path = mountpoint + ref.path.substr(root_prefix.size());
    mounted->nested_[t.ref.path] = std::move(t);
    return Status::Ok();
  };
  for (auto& ref : nested) CVMFS_RETURN_IF_ERROR(plant(ref, ref.path));
  // A bind mountpoint grafts in a root catalog (CVMFS: a tag's).
  for (auto& ref : bind) CVMFS_RETURN_IF_ERROR(plant(ref, ""));
  mounted->max_rowid_ = static_cast<uint64_t>(max_rowid);
  mounted->ttl_ = c.ttl();
  mounted->revision_ = c.revision();
  mounted->inode_base_ = next_inode_->fetch_add(mounted->max_rowid_ + 1);
  {
    // No other thread knows `mounted` yet; the lock is for the analysis.
    cvmfs::MutexLock lock(&mounted->pool_mu_);
    mounted->pool_.push_back(std::move(catalog).value());
  }

  Status pin = cache_->Pin(hash);
  if (!pin.ok()) return pin.Annotate("pinning catalog " + request.description);
  return mounted;
}

Result<MountedCatalog*> CatalogSet::Child(
    MountedCatalog* parent, const MountedCatalog::Transition& at) {
  const NestedCatalogRef& ref = at.ref;
  {
    cvmfs::MutexLock lock(&mu_);
    auto it = children_.find(ref.path);
    if (it != children_.end()) return it->second.get();
  }
  CVMFS_ASSIGN_OR_RETURN(auto attached,
                         Attach(ref.path, at.root_prefix, ref.hash, parent));
  cvmfs::MutexLock lock(&mu_);
  auto [it, inserted] = children_.emplace(ref.path, std::move(attached));
  // If another thread attached it meanwhile, ours is dropped: its inode
  // range stays unused (numbers are plentiful) and the pin is shared.
  if (inserted) by_base_[it->second->inode_base()] = it->second.get();
  return it->second.get();
}

Result<MountedCatalog*> CatalogSet::CatalogFor(const std::string& path) {
  MountedCatalog* current = root_.get();
  size_t pos = current->mountpoint().size();
  while (pos < path.size()) {
    size_t next = path.find('/', pos + 1);
    if (next == std::string::npos) next = path.size();
    std::string prefix = path.substr(0, next);
    if (const MountedCatalog::Transition* at = current->NestedAt(prefix)) {
      CVMFS_ASSIGN_OR_RETURN(current, Child(current, *at));
    }
    pos = next;
  }
  return current;
}

MountedCatalog* CatalogSet::CatalogForInode(uint64_t inode) const {
  cvmfs::MutexLock lock(&mu_);
  auto it = by_base_.upper_bound(inode);
  if (it == by_base_.begin()) return nullptr;
  --it;
  MountedCatalog* c = it->second;
  return inode - c->inode_base() <= c->max_rowid() ? c : nullptr;
}

size_t CatalogSet::size() const {
  cvmfs::MutexLock lock(&mu_);
  return 1 + children_.size();
}

std::vector<const MountedCatalog*> CatalogSet::Attached() const {
  cvmfs::MutexLock lock(&mu_);
  std::vector<const MountedCatalog*> out{root_.get()};
  for (auto& [path, child] : children_) out.push_back(child.get());
  return out;
}

}  // namespace cvmfs::client
