#include "client/bundle_index.h"

namespace cvmfs::client {

std::optional<BundleRef> BundleIndex::Covering(MountedCatalog* catalog,
                                               const std::string& dir,
                                               std::string_view name) {
  const std::string catalog_dir = catalog->CatalogPath(dir);
  std::string key = catalog->hash().ToString();
  key += '\0';
  key += catalog_dir;
  Rows rows = Get(key);
  if (!rows) {
    auto read =
        catalog->With([&](Catalog& c) { return c.Bundles(catalog_dir); });
    if (!read.ok()) return std::nullopt;
    rows =
        std::make_shared<const std::vector<BundleRef>>(std::move(read).value());
    Put(key, rows);
  }
  const BundleRef* row = FindCoveringBundle(*rows, name);
  if (row == nullptr) return std::nullopt;
  return *row;
}

bool BundleIndex::HasBundles(MountedCatalog* catalog) {
  const std::string key = catalog->hash().ToString();
  {
    cvmfs::MutexLock lock(&mu_);
    auto it = has_bundles_.find(key);
    if (it != has_bundles_.end()) return it->second;
  }
  auto has =
      catalog->With([](Catalog& c) -> Result<bool> { return c.has_bundles(); });
  const bool answer = has.ok() && *has;
  cvmfs::MutexLock lock(&mu_);
  if (has_bundles_.size() >= kMaxDirectories) has_bundles_.clear();
  has_bundles_[key] = answer;
  return answer;
}

size_t BundleIndex::directories() const {
  cvmfs::MutexLock lock(&mu_);
  return items_.size();
}

BundleIndex::Rows BundleIndex::Get(const std::string& key) {
  cvmfs::MutexLock lock(&mu_);
  auto it = items_.find(key);
  if (it == items_.end()) return nullptr;
  order_.splice(order_.begin(), order_, it->second.second);
  return it->second.first;
}

void BundleIndex::Put(const std::string& key, Rows rows) {
  Rows dropped;  // destroyed outside the lock
  cvmfs::MutexLock lock(&mu_);
  if (items_.count(key) > 0) return;  // another thread was faster
  order_.push_front(key);
  items_.emplace(key, std::make_pair(std::move(rows), order_.begin()));
  if (items_.size() > kMaxDirectories) {
    auto last = items_.find(order_.back());
    dropped = std::move(last->second.first);
    items_.erase(last);
    order_.pop_back();
  }
}

bool AttachBundleOnce(BundleIndex* index,
                      const std::shared_ptr<CatalogSet>& set,
                      ObjectRequest* request,
                      std::unordered_set<std::string>* seen) {
  AttachBundle(index, set, request);
  if (!request->bundle) return true;
  std::optional<BundleRef> ref = request->bundle();
  if (!ref) {
    request->bundle = nullptr;
    return true;
  }
  if (!seen->insert(ref->hash.ToString()).second) return false;
  request->bundle = [ref] { return ref; };
  return true;
}

void AttachBundle(BundleIndex* index, std::shared_ptr<CatalogSet> set,
                  ObjectRequest* request) {
  if (index == nullptr || request->external ||
      request->suffix != ObjectSuffix::kNone ||
      request->size_hint() > BundleIndex::kMaxFileSize)
    return;
  const std::string& path = request->description;
  const size_t slash = path.rfind('/');
  if (slash == std::string::npos) return;
  request->bundle = [index, set = std::move(set), dir = path.substr(0, slash),
                     name = path.substr(slash + 1)]() {
    auto catalog = set->CatalogFor(dir);
    if (!catalog.ok()) return std::optional<BundleRef>();
    return index->Covering(*catalog, dir, name);
  };
}

}  // namespace cvmfs::client
