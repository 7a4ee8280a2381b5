// BundleIndex: which bundle (doc/format-bundles.md) may hold a file's
// object, from the `bundles` rows of the catalog that holds the file's
// directory. The rows of a directory are read once (one catalog query) and
// kept for the kMaxDirectories directories asked last: a tree reader asks
// for each directory's rows many times in a row (once per file), rarely
// again later. Keyed by the catalog's content hash and the directory, so
// an entry is never stale (a catalog's content never changes).
//
// AttachBundle() gives a whole file's content request a resolver that the
// ObjectFetcher calls only on a cache miss: a cached file costs no query.
//
// Thread safety: all methods are thread-safe; the index is borrowed by the
// resolvers it attaches and outlives them (the file system owns it and
// stops its background work, which holds requests, first).
#ifndef CLIENT_BUNDLE_INDEX_H_
#define CLIENT_BUNDLE_INDEX_H_

#include <list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "client/catalog_set.h"
#include "client/object_fetcher.h"
#include "cvmfs/bundle.h"
#include "cvmfs/mutex.h"

namespace cvmfs::client {

class BundleIndex {
 public:
  // The workload: directories are read one after another; a few thousand
  // rows lists take a few hundred kB.
  static constexpr size_t kMaxDirectories = 4096;
  // Files whose uncompressed size is beyond this are never asked about:
  // their objects are larger than any member (a bundle member's stored
  // object is at most kBundleMemberMax; few files compress 4:1).
  static constexpr uint64_t kMaxFileSize = 4 * kBundleMemberMax;

  // The row covering file `name` of directory `dir` (a mount path, "" for
  // the root) whose entries `catalog` holds; nullopt if none (or the rows
  // cannot be read: the file is then fetched on its own).
  std::optional<BundleRef> Covering(MountedCatalog* catalog,
                                    const std::string& dir,
                                    std::string_view name) EXCLUDES(mu_);
  size_t directories() const EXCLUDES(mu_);
  // Whether `catalog` has a bundles table at all (looked up once per
  // catalog; false if it cannot be read).
  bool HasBundles(MountedCatalog* catalog) EXCLUDES(mu_);

 private:
  using Rows = std::shared_ptr<const std::vector<BundleRef>>;
  Rows Get(const std::string& key) EXCLUDES(mu_);
  void Put(const std::string& key, Rows rows) EXCLUDES(mu_);

  mutable cvmfs::Mutex mu_;  // guards items_ and order_; leaf lock
  std::list<std::string> order_ GUARDED_BY(mu_);  // most recent first
  std::unordered_map<std::string,
                     std::pair<Rows, std::list<std::string>::iterator>>
      items_ GUARDED_BY(mu_);
  // HasBundles by catalog content hash (a catalog's content never changes;
  // a few hundred catalogs at most).
  std::unordered_map<std::string, bool> has_bundles_ GUARDED_BY(mu_);
};

// If `request` (the whole content of the file at request->description,
// from WholeContentRequest) may be a bundle member, sets request->bundle to
// look the covering bundle up in `index` (through `set`, which it keeps
// alive). `index` may be null (bundles off): nothing is set.
void AttachBundle(BundleIndex* index, std::shared_ptr<CatalogSet> set,
                  ObjectRequest* request);

// For a list of prefetch work: the bundle of `request` looked up now, and
// false if an earlier request of the list (its bundle in `seen`) brings
// it: the caller leaves it out of the list. A prefetch worker waiting for
// a bundle another worker fetches would do nothing meanwhile; with one
// request per bundle, the workers fetch that many bundles at once. `index`
// may be null (true, nothing attached).
bool AttachBundleOnce(BundleIndex* index,
                      const std::shared_ptr<CatalogSet>& set,
                      ObjectRequest* request,
                      std::unordered_set<std::string>* seen);

}  // namespace cvmfs::client

#endif  // CLIENT_BUNDLE_INDEX_H_
