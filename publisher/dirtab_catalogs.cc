#include "publisher/dirtab_catalogs.h"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>

#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"

namespace publisher {

using cvmfs::DirectoryEntry;
using cvmfs::Result;
using cvmfs::Status;

DirectoryEntry DirtabMarker(cvmfs::HashAlgorithm hash_algorithm,
                            cvmfs::Compression compression) {
  DirectoryEntry marker;
  marker.mode = S_IFREG | 0644;
  marker.mtime = ::time(nullptr);
  marker.hash_algorithm = hash_algorithm;
  marker.compression = compression;
  return marker;
}

namespace {

class EmptySource : public ByteSource {
 public:
  Result<size_t> Read(void*, size_t) override { return size_t{0}; }
};

size_t Depth(const std::string& path) {
  return static_cast<size_t>(std::count(path.begin(), path.end(), '/'));
}

// Stores the empty file once and returns its content hash.
Result<cvmfs::Digest> StoreEmptyFile(IngestPipeline* pipeline) {
  EmptySource empty;
  auto content = pipeline->Submit(&empty, 0);
  content->Wait();
  if (!content->status().ok())
    return content->status().Annotate("storing the empty .cvmfscatalog file");
  return content->bulk_hash();
}

}  // namespace

Result<std::optional<Dirtab>> LoadDirtab(CatalogTree* tree) {
  const std::string path = kDirtabPath;
  CVMFS_ASSIGN_OR_RETURN(auto entry, tree->Lookup(path));
  if (!entry) return std::optional<Dirtab>();
  if (!entry->IsRegular())
    return Status::InvalidArgument(path + " is not a regular file");
  if (entry->size > kMaxDirtabSize || entry->chunked)
    return Status::InvalidArgument(
        path + " has " + std::to_string(entry->size) +
        " bytes; a dirtab may have at most " + std::to_string(kMaxDirtabSize));
  if (entry->external || !entry->content_hash)
    return Status::InvalidArgument(path + " has no content in the repository");
  auto text = cvmfs::ReadVerifiedObject(
      tree->store(), *entry->content_hash, cvmfs::ObjectSuffix::kNone,
      entry->compression == cvmfs::Compression::kZlib);
  if (!text.ok()) return text.status().Annotate("reading " + path);
  CVMFS_ASSIGN_OR_RETURN(Dirtab dirtab, Dirtab::Parse(*text, path));
  return std::optional<Dirtab>(std::move(dirtab));
}

Result<std::vector<std::string>> ApplyDirtab(
    const Dirtab& dirtab, const std::vector<std::string>& dirs,
    const DirectoryEntry& marker, CatalogTree* tree, IngestPipeline* pipeline,
    std::optional<cvmfs::Digest>* empty_file,
    std::vector<std::string>* markers_created) {
  std::vector<std::string> order;
  for (const std::string& d : dirs) {
    if (!d.empty() && dirtab.IsMatching(d)) order.push_back(d);
  }
  std::sort(order.begin(), order.end(),
            [](const std::string& a, const std::string& b) {
              size_t da = Depth(a), db = Depth(b);
              return da != db ? da < db : a < b;
            });
  order.erase(std::unique(order.begin(), order.end()), order.end());

  std::optional<cvmfs::Digest> own_empty_hash;
  std::optional<cvmfs::Digest>& empty_hash =
      empty_file ? *empty_file : own_empty_hash;
  std::vector<std::string> created;
  for (const std::string& dir : order) {
    CVMFS_ASSIGN_OR_RETURN(auto entry, tree->Lookup(dir));
    if (!entry || !entry->IsDirectory()) continue;  // replaced later in the tar
    if (tree->IsNestedCatalogRoot(dir)) continue;
    const std::string marker_path = dir + "/.cvmfscatalog";
    CVMFS_ASSIGN_OR_RETURN(auto existing, tree->Lookup(marker_path));
    if (!existing) {
      if (!empty_hash) {
        CVMFS_ASSIGN_OR_RETURN(empty_hash, StoreEmptyFile(pipeline));
      }
      DirectoryEntry m = marker;
      m.size = 0;
      m.chunked = false;
      m.content_hash = *empty_hash;
      m.uid = entry->uid;
      m.gid = entry->gid;
      CVMFS_RETURN_IF_ERROR(tree->Put(marker_path, m));
      if (markers_created) markers_created->push_back(dir);
    }
    CVMFS_RETURN_IF_ERROR(tree->CreateNestedCatalog(dir).Annotate(
        std::string(kDirtabPath) + " rule for " + dir));
    created.push_back(dir);
  }
  return created;
}

}  // namespace publisher
