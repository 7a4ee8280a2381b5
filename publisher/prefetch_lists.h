// The recorded prefetch lists of a repository (`cvmfs_server prefetch-list`,
// doc/format-prefetch-list.md, "Storing").
//
// The lists live in one list set object (a zlib-compressed data object)
// named by the root catalog property `prefetch_lists`. Every change is a
// new revision, published the way `rollback` publishes one:
//
//   current root catalog R ─► copy with the property changed (R', same
//   revision and predecessor as R) ─► Repository::PublishOldRoot(R'):
//   revision N+1 with R's content and the new property, history moved,
//   manifest re-signed
//
// so it takes the repository lock, is refused while a transaction is open,
// and leaves only unreferenced objects behind when it fails. (The new
// root's previous_revision names R', which differs from R only in the
// property.) Later publishes keep the property: they change the root
// catalog's rows, never its unknown properties.
//
// Paths are resolved in the current revision (nested catalogs included):
// each listed file gets its content hash, or its chunks, so clients fetch
// without catalog lookups.
//
// Thread safety: none; one command per repository at a time (the lock).
#ifndef PUBLISHER_PREFETCH_LISTS_H_
#define PUBLISHER_PREFETCH_LISTS_H_

#include <string>
#include <vector>

#include "cvmfs/prefetch_list.h"
#include "cvmfs/status.h"
#include "publisher/repository.h"

namespace publisher {

struct PrefetchListChange {
  PublishStats stats;                      // the revision published
  std::vector<cvmfs::PrefetchList> lists;  // all lists of that revision
  std::vector<std::string> warnings;       // paths left out, one line each
};

// The lists of the current revision (empty when it has none). NotFound when
// the root names a list set object the store does not have; the changes
// below then start from no lists and report that as their first warning.
cvmfs::Result<std::vector<cvmfs::PrefetchList>> CurrentPrefetchLists(
    Repository* repo);

// Adds list `name` (replacing one of that name) made of the regular files
// among `paths` in the current revision, in that order. InvalidArgument when
// the name is invalid or none of the paths is a regular file.
cvmfs::Result<PrefetchListChange> AddPrefetchList(
    Repository* repo, const std::string& name,
    const std::vector<std::string>& paths, const PublishOptions& options);

// Removes list `name`; NotFound when there is none.
cvmfs::Result<PrefetchListChange> RemovePrefetchList(
    Repository* repo, const std::string& name, const PublishOptions& options);

// Resolves the paths of every list again in the current revision.
// NotFound when the repository has no lists.
cvmfs::Result<PrefetchListChange> RefreshPrefetchLists(
    Repository* repo, const PublishOptions& options);

// How many files of `list` differ from the current revision (changed
// content, chunking or compression, or gone).
cvmfs::Result<size_t> CountStaleFiles(Repository* repo,
                                      const cvmfs::PrefetchList& list);

}  // namespace publisher

#endif  // PUBLISHER_PREFETCH_LISTS_H_
