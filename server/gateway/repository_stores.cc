#include "server/gateway/repository_stores.h"

#include "publisher/server_config.h"

namespace gateway {

cvmfs::Result<cvmfs::ObjectStore*> RepositoryStores::Get(
    const std::string& fqrn) {
  cvmfs::MutexLock lock(&mu_);
  auto it = stores_.find(fqrn);
  if (it != stores_.end()) return it->second.get();
  CVMFS_ASSIGN_OR_RETURN(publisher::ServerConfig config,
                         publisher::ServerConfig::Load(paths_, fqrn));
  auto store = std::make_unique<cvmfs::LocalObjectStore>(config.storage_dir);
  cvmfs::ObjectStore* raw = store.get();
  stores_[fqrn] = std::move(store);
  return raw;
}

}  // namespace gateway
