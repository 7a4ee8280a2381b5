#include "publisher/catalog_tree.h"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string_view>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_file.h"
#include "cvmfs/object_name.h"
#include "cvmfs/parallel_for.h"
#include "cvmfs/path_hash.h"

namespace publisher {

using cvmfs::CounterSet;
using cvmfs::Digest;
using cvmfs::DirectoryEntry;
using cvmfs::NestedCatalogRef;
using cvmfs::Result;
using cvmfs::Status;

struct CatalogTree::Node {
  std::string mountpoint;
  Node* parent = nullptr;
  std::string file;
  std::unique_ptr<cvmfs::WritableCatalog> db;
  // Rows of nested_catalogs, and the nested catalogs loaded; both looked up
  // by views (NodeFor).
  std::map<std::string, NestedCatalogRef, std::less<>> refs;
  std::map<std::string, std::unique_ptr<Node>, std::less<>> children;
  std::optional<Digest> original_hash;
  CounterSet original_total;  // self + subtree when loaded (zero when new)
  CounterSet original_subtree;
  CounterSet subtree_delta;  // from children added, dropped or moved
  CounterSet new_total;      // after commit
  bool dirty = false;
};

CatalogTree::CatalogTree(cvmfs::ObjectStore* store, CatalogTreeOptions options)
    : store_(store), options_(std::move(options)) {}

CatalogTree::~CatalogTree() {
  // Temporary catalog files are removed with the temp directory by the owner.
}

std::string CatalogTree::NewTempFile() {
  return options_.temp_dir + "/catalog." + std::to_string(++temp_counter_) +
         ".db";
}

Result<std::unique_ptr<CatalogTree::Node>> CatalogTree::LoadNode(
    const std::string& mountpoint, const Digest& hash, Node* parent) {
  auto node = std::make_unique<Node>();
  node->mountpoint = mountpoint;
  node->parent = parent;
  node->file = NewTempFile();
  node->original_hash = hash;
  // Streamed: a catalog of any size costs a few blocks of memory here.
  CVMFS_RETURN_IF_ERROR(
      cvmfs::ReadVerifiedObjectToFile(store_, hash,
                                      cvmfs::ObjectSuffix::kCatalog, node->file)
          .Annotate("catalog of " + (mountpoint.empty() ? "/" : mountpoint)));
  {
    CVMFS_ASSIGN_OR_RETURN(auto ro, cvmfs::Catalog::Open(node->file));
    CVMFS_ASSIGN_OR_RETURN(auto counters, ro->ReadCounters());
    node->original_subtree = counters.subtree;
    node->original_total = counters.self;
    node->original_total += counters.subtree;
    CVMFS_ASSIGN_OR_RETURN(auto refs, ro->NestedCatalogs());
    for (auto& r : refs) node->refs[r.path] = r;
  }
  CVMFS_ASSIGN_OR_RETURN(node->db,
                         cvmfs::WritableCatalog::OpenForWriting(node->file));
  CVMFS_RETURN_IF_ERROR(ShareCacheBudget(node.get()));
  return node;
}

Result<std::unique_ptr<CatalogTree>> CatalogTree::Open(
    cvmfs::ObjectStore* store, const Digest& root_hash,
    CatalogTreeOptions options) {
  std::unique_ptr<CatalogTree> tree(new CatalogTree(store, std::move(options)));
  CVMFS_ASSIGN_OR_RETURN(tree->root_, tree->LoadNode("", root_hash, nullptr));
  return tree;
}

Result<std::unique_ptr<CatalogTree>> CatalogTree::CreateEmpty(
    cvmfs::ObjectStore* store, const DirectoryEntry& root,
    CatalogTreeOptions options) {
  std::unique_ptr<CatalogTree> tree(new CatalogTree(store, std::move(options)));
  auto node = std::make_unique<Node>();
  node->file = tree->NewTempFile();
  CVMFS_ASSIGN_OR_RETURN(
      node->db, cvmfs::WritableCatalog::Create(node->file, "", root, false));
  CVMFS_RETURN_IF_ERROR(tree->ShareCacheBudget(node.get()));
  node->dirty = true;
  tree->root_ = std::move(node);
  return tree;
}

// The budget is shared by every catalog opened so far (those committed or
// dropped since still count: the share only shrinks). Shares are powers of
// two, so the open catalogs are resized O(log n) times, not once per new
// catalog.
Status CatalogTree::ShareCacheBudget(Node* added) {
  ++catalogs_opened_;
  size_t share = kMaxCatalogCache;
  while (share > kMinCatalogCache &&
         share * catalogs_opened_ > kCatalogCacheBudget)
    share /= 2;
  if (share != cache_share_) {
    cache_share_ = share;
    std::vector<Node*> todo{root_.get()};
    while (!todo.empty()) {
      Node* n = todo.back();
      todo.pop_back();
      if (!n) continue;
      if (n->db) CVMFS_RETURN_IF_ERROR(n->db->SetCacheSize(share));
      for (auto& [mp, child] : n->children) todo.push_back(child.get());
    }
  }
  return added->db->SetCacheSize(cache_share_);
}

void CatalogTree::MarkDirty(Node* node) {
  for (; node && !node->dirty; node = node->parent) node->dirty = true;
}

Result<CatalogTree::Node*> CatalogTree::NodeFor(const std::string& path) {
  Node* node = root_.get();
  for (;;) {
    Node* next = nullptr;
    // Check each ancestor prefix of `path` below the node's mountpoint, as
    // views into `path`: a path d levels deep costs O(d) (times the depth
    // of the keys it shares a prefix with), not d copies of its prefixes.
    size_t pos = node->mountpoint.size();
    while (!node->refs.empty() && pos < path.size()) {
      size_t slash = path.find('/', pos + 1);
      std::string_view prefix = std::string_view(path).substr(0, slash);
      auto ref = node->refs.find(prefix);
      if (ref != node->refs.end()) {
        auto child = node->children.find(prefix);
        if (child == node->children.end()) {
          CVMFS_ASSIGN_OR_RETURN(auto loaded,
                                 LoadNode(ref->first, ref->second.hash, node));
          child = node->children.emplace(ref->first, std::move(loaded)).first;
        }
        next = child->second.get();
        break;
      }
      if (slash == std::string::npos) break;
      pos = slash;
    }
    if (!next) return node;
    node = next;
  }
}

Result<std::optional<DirectoryEntry>> CatalogTree::Lookup(
    const std::string& path) {
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(path));
  return node->db->Lookup(path);
}

Result<std::vector<DirectoryEntry>> CatalogTree::List(const std::string& dir) {
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(dir));
  return node->db->List(dir);
}

Result<std::vector<cvmfs::FileChunk>> CatalogTree::Chunks(
    const std::string& path) {
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(path));
  return node->db->Chunks(path);
}

bool CatalogTree::IsNestedCatalogRoot(const std::string& dir) {
  auto node = NodeFor(dir);
  return node.ok() && !dir.empty() && (*node)->mountpoint == dir;
}

Status CatalogTree::Put(const std::string& path, const DirectoryEntry& entry_in,
                        const std::vector<cvmfs::FileChunk>& chunks) {
  if (path.empty()) {
    // The repository root: only its attributes change.
    DirectoryEntry e = entry_in;
    CVMFS_ASSIGN_OR_RETURN(auto old, root_->db->Lookup(""));
    if (!e.IsDirectory())
      return Status::InvalidArgument("the repository root must be a directory");
    if (old) e.linkcount = old->linkcount;
    e.name = "";
    CVMFS_RETURN_IF_ERROR(root_->db->UpdateEntry("", e));
    MarkDirty(root_.get());
    return Status::Ok();
  }
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(path));
  DirectoryEntry entry = entry_in;
  entry.name = std::string(cvmfs::BaseName(path));
  CVMFS_ASSIGN_OR_RETURN(auto existing, node->db->Lookup(path));
  if (!existing && node->mountpoint != path)
    return AddNew(node, path, std::move(entry), chunks);
  // A tree published again is mostly unchanged: an entry equal to its row
  // writes nothing, and a catalog nothing was written to is not rewritten
  // beyond its revision.
  CVMFS_ASSIGN_OR_RETURN(bool unchanged,
                         Unchanged(node, path, entry, chunks, existing));
  if (unchanged) return Status::Ok();
  if (!entry.IsDirectory() || (existing && !existing->IsDirectory()))
    changed_file_dirs_.insert(std::string(cvmfs::ParentPath(path)));

  if (existing && existing->IsDirectory() && !entry.IsDirectory()) {
    CVMFS_RETURN_IF_ERROR(Remove(path));
    CVMFS_ASSIGN_OR_RETURN(node, NodeFor(path));
    existing.reset();
  }
  if (existing && existing->IsDirectory()) {
    // Same directory, new attributes; contents, link count and catalog
    // structure stay.
    entry.linkcount = existing->linkcount;
    entry.nested_root = existing->nested_root;
    entry.nested_mountpoint = existing->nested_mountpoint;
    CVMFS_RETURN_IF_ERROR(node->db->UpdateEntry(path, entry));
    if (node->mountpoint == path && node->parent) {
      DirectoryEntry outer = entry;
      outer.nested_root = false;
      outer.nested_mountpoint = true;
      CVMFS_RETURN_IF_ERROR(node->parent->db->UpdateEntry(path, outer));
      MarkDirty(node->parent);
    }
    MarkDirty(node);
    return Status::Ok();
  }

  std::string parent_path(cvmfs::ParentPath(path));
  CVMFS_RETURN_IF_ERROR(CheckParentDirectory(node, path, parent_path));
  if (existing) CVMFS_RETURN_IF_ERROR(node->db->RemoveEntry(path));
  if (entry.IsDirectory()) {
    entry.linkcount = 2;
    entry.nested_mountpoint = entry.nested_root = false;
    touched_dirs_.insert(parent_path);
  }
  CVMFS_RETURN_IF_ERROR(node->db->AddEntry(path, entry));
  if (entry.chunked) CVMFS_RETURN_IF_ERROR(node->db->SetChunks(path, chunks));
  MarkDirty(node);
  return Status::Ok();
}

Status CatalogTree::AddNew(Node* node, const std::string& path,
                           DirectoryEntry entry,
                           const std::vector<cvmfs::FileChunk>& chunks) {
  std::string parent_path(cvmfs::ParentPath(path));
  CVMFS_RETURN_IF_ERROR(CheckParentDirectory(node, path, parent_path));
  if (entry.IsDirectory()) {
    entry.linkcount = 2;
    entry.nested_mountpoint = entry.nested_root = false;
  }
  CVMFS_RETURN_IF_ERROR(node->db->AddEntry(path, entry));
  if (entry.IsDirectory())
    touched_dirs_.insert(parent_path);
  else
    changed_file_dirs_.insert(parent_path);
  if (entry.chunked) CVMFS_RETURN_IF_ERROR(node->db->SetChunks(path, chunks));
  MarkDirty(node);
  return Status::Ok();
}

Result<bool> CatalogTree::Unchanged(
    Node* node, const std::string& path, DirectoryEntry entry,
    const std::vector<cvmfs::FileChunk>& chunks,
    const std::optional<DirectoryEntry>& existing) {
  if (!existing || existing->IsDirectory() != entry.IsDirectory()) return false;
  if (entry.IsDirectory()) {
    // What Put keeps of a directory's row: its contents and catalog
    // structure.
    entry.linkcount = existing->linkcount;
    entry.nested_root = existing->nested_root;
    entry.nested_mountpoint = existing->nested_mountpoint;
  }
  if (entry != *existing) return false;
  if (!entry.chunked) return true;
  CVMFS_ASSIGN_OR_RETURN(std::vector<cvmfs::FileChunk> stored,
                         node->db->Chunks(path));
  return stored == chunks;
}

Status CatalogTree::CheckParentDirectory(Node* node, const std::string& path,
                                         const std::string& parent_path) {
  if (known_dir_node_ == node && known_dir_ == parent_path) return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(auto parent, node->db->Lookup(parent_path));
  if (!parent || !parent->IsDirectory())
    return Status::NotFound("cannot add " + path +
                            ": parent directory missing");
  known_dir_ = parent_path;
  known_dir_node_ = node;
  return Status::Ok();
}

Status CatalogTree::DropNode(Node* parent, const std::string& mountpoint) {
  ForgetKnownDir();
  auto ref = parent->refs.find(mountpoint);
  if (ref == parent->refs.end()) return Status::Ok();
  auto child = parent->children.find(mountpoint);
  if (child == parent->children.end()) {
    CVMFS_ASSIGN_OR_RETURN(auto loaded,
                           LoadNode(mountpoint, ref->second.hash, parent));
    child = parent->children.emplace(mountpoint, std::move(loaded)).first;
  }
  parent->subtree_delta -= child->second->original_total;
  parent->children.erase(child);
  parent->refs.erase(ref);
  CVMFS_RETURN_IF_ERROR(parent->db->RemoveNestedCatalog(mountpoint));
  MarkDirty(parent);
  return Status::Ok();
}

Status CatalogTree::RemoveSubtree(Node* node, const std::string& path) {
  ForgetKnownDir();
  CVMFS_RETURN_IF_ERROR(node->db->SetBundles(path, {}));
  CVMFS_ASSIGN_OR_RETURN(auto entries, node->db->List(path));
  for (auto& e : entries) {
    std::string child = path + "/" + e.name;
    if (e.bind_mountpoint) {
      CVMFS_RETURN_IF_ERROR(DropBindMountpoint(node, child));
      CVMFS_RETURN_IF_ERROR(node->db->RemoveEntry(child));
    } else if (e.nested_mountpoint) {
      CVMFS_RETURN_IF_ERROR(DropNode(node, child));
      CVMFS_RETURN_IF_ERROR(node->db->RemoveEntry(child));
    } else if (e.IsDirectory()) {
      CVMFS_RETURN_IF_ERROR(RemoveSubtree(node, child));
    } else {
      CVMFS_RETURN_IF_ERROR(node->db->RemoveEntry(child));
    }
  }
  return node->db->RemoveEntry(path);
}

Status CatalogTree::Remove(const std::string& path) {
  ForgetKnownDir();
  if (path.empty())
    return Status::InvalidArgument("cannot remove the repository root");
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(path));
  std::string parent_path(cvmfs::ParentPath(path));
  if (node->mountpoint == path && node->parent) {
    Node* parent = node->parent;
    CVMFS_RETURN_IF_ERROR(DropNode(parent, path));
    CVMFS_RETURN_IF_ERROR(parent->db->RemoveEntry(path));
    touched_dirs_.insert(parent_path);
    MarkDirty(parent);
    return Status::Ok();
  }
  CVMFS_ASSIGN_OR_RETURN(auto existing, node->db->Lookup(path));
  if (!existing) return Status::Ok();
  if (existing->bind_mountpoint) {
    CVMFS_RETURN_IF_ERROR(DropBindMountpoint(node, path));
    CVMFS_RETURN_IF_ERROR(node->db->RemoveEntry(path));
    touched_dirs_.insert(parent_path);
  } else if (existing->IsDirectory()) {
    CVMFS_RETURN_IF_ERROR(RemoveSubtree(node, path));
    touched_dirs_.insert(parent_path);
  } else {
    CVMFS_RETURN_IF_ERROR(node->db->RemoveEntry(path));
    changed_file_dirs_.insert(parent_path);
  }
  MarkDirty(node);
  return Status::Ok();
}

Result<std::vector<cvmfs::BundleRef>> CatalogTree::Bundles(
    const std::string& dir) {
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(dir));
  return node->db->Bundles(dir);
}

Status CatalogTree::SetBundles(const std::string& dir,
                               const std::vector<cvmfs::BundleRef>& rows) {
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(dir));
  CVMFS_ASSIGN_OR_RETURN(std::vector<cvmfs::BundleRef> old,
                         node->db->Bundles(dir));
  std::vector<cvmfs::BundleRef> sorted = rows;
  std::sort(sorted.begin(), sorted.end(),
            [](const cvmfs::BundleRef& a, const cvmfs::BundleRef& b) {
              return a.first_name < b.first_name;
            });
  if (old == sorted) return Status::Ok();
  CVMFS_RETURN_IF_ERROR(node->db->SetBundles(dir, sorted));
  MarkDirty(node);
  return Status::Ok();
}

Status CatalogTree::DropBindMountpoint(Node* node, const std::string& path) {
  Status s = node->db->RemoveBindMountpoint(path);
  // A flagged row without its table row (not one we wrote) goes anyway.
  if (!s.ok() && s.code() != Status::Code::kNotFound) return s;
  MarkDirty(node);
  return Status::Ok();
}

Status CatalogTree::PutBindMountpoint(const NestedCatalogRef& ref,
                                      DirectoryEntry entry) {
  if (!entry.IsDirectory())
    return Status::InvalidArgument("bind mountpoint " + ref.path +
                                   " must be a directory");
  CVMFS_RETURN_IF_ERROR(Remove(ref.path));
  entry.bind_mountpoint = true;
  entry.nested_root = entry.nested_mountpoint = entry.hidden = false;
  entry.xattrs = {};
  CVMFS_RETURN_IF_ERROR(Put(ref.path, entry));
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(ref.path));
  CVMFS_RETURN_IF_ERROR(node->db->AddBindMountpoint(ref));
  MarkDirty(node);
  return Status::Ok();
}

Result<std::vector<NestedCatalogRef>> CatalogTree::BindMountpoints(
    const std::string& dir) {
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(dir));
  return node->db->BindMountpoints();
}

Result<std::pair<DirectoryEntry, uint64_t>> CatalogTree::RootOf(
    const Digest& root_hash) {
  const std::string file = NewTempFile();
  CVMFS_RETURN_IF_ERROR(
      cvmfs::ReadVerifiedObjectToFile(store_, root_hash,
                                      cvmfs::ObjectSuffix::kCatalog, file)
          .Annotate("catalog " + root_hash.ToString()));
  struct stat info;
  if (::stat(file.c_str(), &info) != 0)
    return Status::FromErrno(errno, "stat " + file);
  const uint64_t raw_size = static_cast<uint64_t>(info.st_size);
  Result<std::optional<DirectoryEntry>> root = [&] {
    auto catalog = cvmfs::Catalog::Open(file);
    if (!catalog.ok())
      return Result<std::optional<DirectoryEntry>>(catalog.status());
    if (!(*catalog)->is_root())
      return Result<std::optional<DirectoryEntry>>(Status::InvalidArgument(
          "catalog " + root_hash.ToString() + " is not a root catalog"));
    return (*catalog)->Lookup("");
  }();
  ::unlink(file.c_str());
  if (!root.ok()) return root.status();
  if (!*root)
    return Status::Corruption("catalog " + root_hash.ToString() +
                              " has no root entry");
  return std::make_pair(std::move(**root), raw_size);
}

// Moves every entry strictly below `dir` from one catalog to another,
// together with the nested catalogs mounted there.
Status CatalogTree::MoveSubtree(Node* from, Node* to, const std::string& dir) {
  ForgetKnownDir();
  CVMFS_ASSIGN_OR_RETURN(std::vector<cvmfs::BundleRef> bundles,
                         from->db->Bundles(dir));
  if (!bundles.empty()) {
    CVMFS_RETURN_IF_ERROR(from->db->SetBundles(dir, {}));
    CVMFS_RETURN_IF_ERROR(to->db->SetBundles(dir, bundles));
  }
  CVMFS_ASSIGN_OR_RETURN(auto entries, from->db->List(dir));
  for (auto& e : entries) {
    std::string path = dir + "/" + e.name;
    if (e.nested_mountpoint) {
      auto ref = from->refs.find(path);
      if (ref == from->refs.end())
        return Status::Corruption("transition point " + path +
                                  " without nested catalog");
      auto child = from->children.find(path);
      if (child == from->children.end()) {
        CVMFS_ASSIGN_OR_RETURN(auto loaded,
                               LoadNode(path, ref->second.hash, from));
        child = from->children.emplace(path, std::move(loaded)).first;
      }
      std::unique_ptr<Node> moved = std::move(child->second);
      from->children.erase(child);
      from->subtree_delta -= moved->original_total;
      to->subtree_delta += moved->original_total;
      moved->parent = to;
      CVMFS_RETURN_IF_ERROR(from->db->RemoveNestedCatalog(path));
      CVMFS_RETURN_IF_ERROR(to->db->AddNestedCatalog(ref->second));
      to->refs[path] = ref->second;
      from->refs.erase(ref);
      to->children[path] = std::move(moved);
      CVMFS_RETURN_IF_ERROR(from->db->RemoveEntry(path));
      CVMFS_RETURN_IF_ERROR(to->db->AddEntry(path, e));
      continue;
    }
    if (e.IsDirectory()) CVMFS_RETURN_IF_ERROR(MoveSubtree(from, to, path));
    std::vector<cvmfs::FileChunk> chunks;
    if (e.chunked) {
      CVMFS_ASSIGN_OR_RETURN(chunks, from->db->Chunks(path));
    }
    CVMFS_RETURN_IF_ERROR(from->db->RemoveEntry(path));
    CVMFS_RETURN_IF_ERROR(to->db->AddEntry(path, e));
    if (e.chunked) CVMFS_RETURN_IF_ERROR(to->db->SetChunks(path, chunks));
  }
  return Status::Ok();
}

Status CatalogTree::CreateNestedCatalog(const std::string& dir) {
  ForgetKnownDir();
  if (dir.empty())
    return Status::InvalidArgument(
        ".cvmfscatalog is not allowed in the repository root");
  CVMFS_ASSIGN_OR_RETURN(Node * parent, NodeFor(dir));
  if (parent->mountpoint == dir) return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(auto entry, parent->db->Lookup(dir));
  if (!entry || !entry->IsDirectory())
    return Status::InvalidArgument("cannot create a nested catalog at " + dir +
                                   ": not a directory");

  auto node = std::make_unique<Node>();
  node->mountpoint = dir;
  node->parent = parent;
  node->file = NewTempFile();
  DirectoryEntry root = *entry;
  root.nested_mountpoint = false;
  root.nested_root = true;
  CVMFS_ASSIGN_OR_RETURN(
      node->db, cvmfs::WritableCatalog::Create(node->file, dir, root, true));
  CVMFS_RETURN_IF_ERROR(ShareCacheBudget(node.get()));
  CVMFS_RETURN_IF_ERROR(MoveSubtree(parent, node.get(), dir));

  DirectoryEntry outer = *entry;
  outer.nested_mountpoint = true;
  outer.nested_root = false;
  CVMFS_RETURN_IF_ERROR(parent->db->UpdateEntry(dir, outer));
  NestedCatalogRef ref{dir, Digest{options_.hash_algorithm, {}}, 0};
  CVMFS_RETURN_IF_ERROR(parent->db->AddNestedCatalog(ref));
  parent->refs[dir] = ref;
  Node* raw = node.get();
  parent->children[dir] = std::move(node);
  raw->dirty = true;
  MarkDirty(parent);
  return Status::Ok();
}

Status CatalogTree::RemoveNestedCatalog(const std::string& dir) {
  ForgetKnownDir();
  CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(dir));
  if (dir.empty() || node->mountpoint != dir) return Status::Ok();
  Node* parent = node->parent;
  CVMFS_RETURN_IF_ERROR(MoveSubtree(node, parent, dir));
  CVMFS_ASSIGN_OR_RETURN(auto root, node->db->Lookup(dir));
  // MoveSubtree credited the grandchildren's totals to the parent; the
  // merged catalog's own rows now count in the parent's self counters.
  parent->subtree_delta -= node->original_total;
  parent->children.erase(dir);
  parent->refs.erase(dir);
  CVMFS_RETURN_IF_ERROR(parent->db->RemoveNestedCatalog(dir));
  if (root) {
    DirectoryEntry merged = *root;
    merged.nested_root = merged.nested_mountpoint = false;
    CVMFS_RETURN_IF_ERROR(parent->db->UpdateEntry(dir, merged));
  }
  MarkDirty(parent);
  return Status::Ok();
}

Status CatalogTree::FixDirectoryLinkcounts() {
  for (const std::string& dir : touched_dirs_) {
    CVMFS_ASSIGN_OR_RETURN(Node * node, NodeFor(dir));
    CVMFS_ASSIGN_OR_RETURN(auto entry, node->db->Lookup(dir));
    if (!entry || !entry->IsDirectory()) continue;
    CVMFS_ASSIGN_OR_RETURN(auto children, node->db->List(dir));
    uint32_t links = 2;
    for (auto& c : children) links += c.IsDirectory() ? 1 : 0;
    if (entry->linkcount == links) continue;
    entry->linkcount = links;
    CVMFS_RETURN_IF_ERROR(node->db->UpdateEntry(dir, *entry));
    MarkDirty(node);
    if (node->mountpoint == dir && node->parent) {
      CVMFS_ASSIGN_OR_RETURN(auto outer, node->parent->db->Lookup(dir));
      if (outer) {
        outer->linkcount = links;
        CVMFS_RETURN_IF_ERROR(node->parent->db->UpdateEntry(dir, *outer));
        MarkDirty(node->parent);
      }
    }
  }
  touched_dirs_.clear();
  return Status::Ok();
}

Status CatalogTree::CommitNode(Node* node, uint64_t revision, int64_t timestamp,
                               CommitResult* result) {
  // The dirty children first, several at once (a child's counters,
  // compression and storing touch only its own catalog, its subtree and the
  // store; most of a million-file publish's commit is compressing its
  // nested catalogs). Linking them into this catalog follows, in order.
  std::vector<Node*> dirty;
  for (auto& [mp, child] : node->children)
    if (child->dirty) dirty.push_back(child.get());
  std::vector<CommitResult> written(dirty.size());
  std::vector<Status> outcome(dirty.size());
  cvmfs::ParallelFor(dirty.size(), cvmfs::CoreThreads(), [&](size_t i) {
    outcome[i] = CommitNode(dirty[i], revision, timestamp, &written[i]);
  });
  CounterSet children_change;
  for (size_t i = 0; i < dirty.size(); ++i) {
    CVMFS_RETURN_IF_ERROR(outcome[i]);
    Node* child = dirty[i];
    NestedCatalogRef ref{child->mountpoint, written[i].root_hash,
                         written[i].root_size};
    CVMFS_RETURN_IF_ERROR(node->db->UpdateNestedCatalog(ref));
    node->refs[child->mountpoint] = ref;
    for (std::string& mp : written[i].committed_catalogs)
      result->committed_catalogs.push_back(std::move(mp));
    children_change += child->new_total;
    children_change -= child->original_total;
  }
  if (!node->dirty) return Status::Ok();
  return WriteNode(node, revision, timestamp, children_change, result)
      .Annotate("writing the catalog of " +
                (node->mountpoint.empty() ? "/" : node->mountpoint));
}

Status CatalogTree::WriteNode(Node* node, uint64_t revision, int64_t timestamp,
                              const CounterSet& children_change,
                              CommitResult* result) {
  CVMFS_ASSIGN_OR_RETURN(auto counters, node->db->ComputeCounters());
  CounterSet subtree = node->original_subtree;
  subtree += node->subtree_delta;
  subtree += children_change;
  CVMFS_RETURN_IF_ERROR(node->db->SetSubtreeCounters(subtree));
  std::optional<uint64_t> ttl;
  if (!node->parent) ttl = options_.ttl;
  CVMFS_RETURN_IF_ERROR(
      node->db->Commit(revision, timestamp, node->original_hash, ttl));
  node->db.reset();

  // Compressed from the file into a scratch file and stored from there:
  // the catalog is never whole in memory, whatever its size.
  struct stat info;
  if (::stat(node->file.c_str(), &info) != 0)
    return Status::FromErrno(errno, "stat " + node->file);
  const uint64_t raw_size = static_cast<uint64_t>(info.st_size);
  auto stored =
      cvmfs::StoreFileObject(store_, node->file, cvmfs::ObjectSuffix::kCatalog,
                             options_.hash_algorithm, node->file + ".z");
  ::unlink(node->file.c_str());
  if (!stored.ok()) return stored.status();

  node->new_total = counters.self;
  node->new_total += subtree;
  node->dirty = false;
  // The parent links a nested catalog in (CommitNode); the root's hash is
  // the revision's.
  result->committed_catalogs.push_back(node->mountpoint);
  result->root_hash = stored->digest;
  result->root_size = raw_size;
  return Status::Ok();
}

Result<CommitResult> CatalogTree::Commit(uint64_t revision, int64_t timestamp) {
  ForgetKnownDir();
  CVMFS_RETURN_IF_ERROR(FixDirectoryLinkcounts());
  // The root catalog carries the revision: it is written even when no
  // entry changed.
  MarkDirty(root_.get());
  CommitResult result;
  CVMFS_RETURN_IF_ERROR(CommitNode(root_.get(), revision, timestamp, &result));
  return result;
}

}  // namespace publisher
