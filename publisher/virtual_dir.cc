#include "publisher/virtual_dir.h"

#include <sys/stat.h>

#include <map>

#include "cvmfs/object_store.h"

namespace publisher {

using cvmfs::Digest;
using cvmfs::DirectoryEntry;
using cvmfs::NestedCatalogRef;
using cvmfs::Result;
using cvmfs::Status;

namespace {

// Tags that name no snapshot: the moving heads.
bool IsSnapshotTag(const std::string& name) {
  return name != "trunk" && name != "trunk-previous";
}

DirectoryEntry VirtualDirectory(int64_t now) {
  DirectoryEntry d;
  d.mode = S_IFDIR | 0555;
  d.size = 97;  // what CVMFS writes for these directories
  d.mtime = now;
  return d;
}

// /.cvmfs as its own hidden nested catalog with its marker, and
// /.cvmfs/snapshots: created when missing.
Status EnsurePresent(CatalogTree* tree, const VirtualDirOptions& options) {
  CVMFS_ASSIGN_OR_RETURN(auto existing, tree->Lookup(kVirtualDirPath));
  if (existing) {
    if (!existing->IsDirectory() || !existing->hidden ||
        !tree->IsNestedCatalogRoot(kVirtualDirPath))
      return Status::InvalidArgument(
          std::string(kVirtualDirPath) +
          " exists but is not the virtual directory; remove it first");
    return Status::Ok();
  }
  DirectoryEntry dir = VirtualDirectory(options.now);
  dir.hidden = true;
  CVMFS_RETURN_IF_ERROR(tree->Put(kVirtualDirPath, dir));
  CVMFS_RETURN_IF_ERROR(tree->CreateNestedCatalog(kVirtualDirPath));
  // The marker's content, the empty file, must be stored.
  CVMFS_ASSIGN_OR_RETURN(
      Digest empty,
      cvmfs::StoreObject(tree->store(), "", cvmfs::ObjectSuffix::kNone,
                         options.hash_algorithm));
  DirectoryEntry marker;
  marker.mode = S_IFREG | 0444;
  marker.mtime = options.now;
  marker.content_hash = empty;
  marker.hash_algorithm = options.hash_algorithm;
  marker.compression = cvmfs::Compression::kZlib;
  CVMFS_RETURN_IF_ERROR(
      tree->Put(std::string(kVirtualDirPath) + "/.cvmfscatalog", marker));
  return tree->Put(kSnapshotsPath, VirtualDirectory(options.now));
}

}  // namespace

bool IsVirtualDirPath(const std::string& path) {
  const std::string dir = kVirtualDirPath;
  return path == dir || path.compare(0, dir.size() + 1, dir + "/") == 0;
}

Result<bool> HasVirtualDir(CatalogTree* tree) {
  CVMFS_ASSIGN_OR_RETURN(auto existing, tree->Lookup(kVirtualDirPath));
  return existing.has_value();
}

Status UpdateVirtualDir(CatalogTree* tree, const std::vector<cvmfs::Tag>& tags,
                        const VirtualDirOptions& options) {
  CVMFS_RETURN_IF_ERROR(EnsurePresent(tree, options));
  std::map<std::string, Digest> wanted;
  for (const cvmfs::Tag& t : tags) {
    if (!IsSnapshotTag(t.name)) continue;
    if (t.name.empty() || t.name.find('/') != std::string::npos)
      return Status::InvalidArgument("tag name '" + t.name +
                                     "' cannot name a snapshot directory");
    wanted[t.name] = t.root_hash;
  }
  const std::string prefix = std::string(kSnapshotsPath) + "/";
  CVMFS_ASSIGN_OR_RETURN(std::vector<NestedCatalogRef> present,
                         tree->BindMountpoints(kSnapshotsPath));
  for (const NestedCatalogRef& ref : present) {
    if (ref.path.compare(0, prefix.size(), prefix) != 0) continue;
    auto it = wanted.find(ref.path.substr(prefix.size()));
    if (it != wanted.end() && it->second == ref.hash) {
      wanted.erase(it);  // in place already
      continue;
    }
    CVMFS_RETURN_IF_ERROR(tree->Remove(ref.path));
  }
  for (const auto& [name, root_hash] : wanted) {
    CVMFS_ASSIGN_OR_RETURN(auto root, tree->RootOf(root_hash));
    NestedCatalogRef ref{prefix + name, root_hash, root.second};
    CVMFS_RETURN_IF_ERROR(
        tree->PutBindMountpoint(ref, root.first).Annotate("snapshot " + name));
  }
  return Status::Ok();
}

Status RemoveVirtualDir(CatalogTree* tree) {
  CVMFS_ASSIGN_OR_RETURN(auto existing, tree->Lookup(kVirtualDirPath));
  // Only the publisher's own (hidden, a nested catalog): a /.cvmfs that
  // came otherwise (an old ingest) is left alone.
  if (!existing || !existing->hidden ||
      !tree->IsNestedCatalogRoot(kVirtualDirPath))
    return Status::Ok();
  return tree->Remove(kVirtualDirPath);
}

}  // namespace publisher
