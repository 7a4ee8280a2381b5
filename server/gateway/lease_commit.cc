#include "server/gateway/lease_commit.h"

#include <memory>
#include <optional>
#include <vector>

#include "cvmfs/file_util.h"
#include "publisher/catalog_tree.h"
#include "publisher/diff.h"
#include "publisher/repository.h"

namespace gateway {

namespace {

// Replays `changes` (from old_root to new_root) onto `tree`, reading the new
// entries from `from`.
cvmfs::Status Replay(const std::vector<publisher::PathChange>& changes,
                     publisher::CatalogTree* from,
                     publisher::CatalogTree* tree) {
  for (const publisher::PathChange& c : changes) {
    if (c.kind == publisher::ChangeKind::kRemoved) {
      CVMFS_RETURN_IF_ERROR(tree->Remove(c.path));
      continue;
    }
    if (c.differences.find('B') != std::string::npos)
      return cvmfs::Status::NotSupported(
          c.path + ": bind mountpoints are not committed through the gateway");
    CVMFS_ASSIGN_OR_RETURN(std::optional<cvmfs::DirectoryEntry> entry,
                           from->Lookup(c.path));
    if (!entry)
      return cvmfs::Status::Corruption(c.path + ": missing in the new root");
    if (entry->bind_mountpoint)
      return cvmfs::Status::NotSupported(
          c.path + ": bind mountpoints are not committed through the gateway");
    std::vector<cvmfs::FileChunk> chunks;
    if (entry->chunked) {
      CVMFS_ASSIGN_OR_RETURN(chunks, from->Chunks(c.path));
    }
    CVMFS_RETURN_IF_ERROR(tree->Put(c.path, *entry, chunks));
    // A directory that is (or stopped being) a nested catalog's root in
    // the new root is one in the commit too; its contents follow it there.
    if (entry->IsDirectory() && !c.path.empty()) {
      const bool nested = from->IsNestedCatalogRoot(c.path);
      if (nested != tree->IsNestedCatalogRoot(c.path))
        CVMFS_RETURN_IF_ERROR(nested ? tree->CreateNestedCatalog(c.path)
                                     : tree->RemoveNestedCatalog(c.path));
    }
  }
  return cvmfs::Status::Ok();
}

}  // namespace

cvmfs::Result<uint64_t> CommitLease(const cvmfs::SystemPaths& paths,
                                    const LeaseCommitRequest& request) {
  CVMFS_ASSIGN_OR_RETURN(
      std::unique_ptr<publisher::Repository> repo,
      publisher::Repository::Open(paths, request.lease.fqrn));
  CVMFS_ASSIGN_OR_RETURN(std::string temp, repo->MakeTempDir());
  cvmfs::ScopedRemoveTree remove_temp(temp);
  cvmfs::ObjectStore* store = repo->store();

  // What the lease holder changed, below the lease path only.
  std::vector<publisher::PathChange> changes;
  bool outside = false;
  std::string diff_dir = temp + "/diff";
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(diff_dir));
  CVMFS_ASSIGN_OR_RETURN(
      publisher::DiffSummary summary,
      publisher::DiffRevisions(
          store, request.old_root, request.new_root, diff_dir, {},
          [&](const publisher::PathChange& c) {
            if (publisher::IsAtOrBelow(c.path, request.lease.path)) {
              changes.push_back(c);
            } else if (publisher::ReachesOutside(c.path, request.lease.path)) {
              outside = true;  // parents of the lease path may show mtimes
            }
          }));
  (void)summary;
  if (outside)
    return cvmfs::Status::Permission("the change reaches outside " +
                                     request.lease.ToString());

  publisher::CatalogTreeOptions options;
  options.hash_algorithm = repo->config().hash_algorithm;
  options.ttl = repo->config().ttl;
  options.temp_dir = temp + "/new";
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(options.temp_dir));
  CVMFS_ASSIGN_OR_RETURN(
      std::unique_ptr<publisher::CatalogTree> from,
      publisher::CatalogTree::Open(store, request.new_root, options));

  publisher::PublishOptions publish;
  publish.tag_name = request.tag_name;
  publish.tag_description = request.tag_description;
  CVMFS_ASSIGN_OR_RETURN(
      publisher::PublishStats stats,
      repo->Publish(
          [&](publisher::CatalogTree* tree, publisher::IngestPipeline*) {
            return Replay(changes, from.get(), tree);
          },
          publish));
  return stats.revision;
}

}  // namespace gateway
