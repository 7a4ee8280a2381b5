#include "server/gateway/repository_stores.h"

#include "publisher/object_store_factory.h"
#include "publisher/server_config.h"

namespace gateway {

cvmfs::Result<cvmfs::ObjectStore*> RepositoryStores::Get(
    const std::string& fqrn) {
  cvmfs::MutexLock lock(&mu_);
  auto it = stores_.find(fqrn);
  if (it != stores_.end()) return it->second.get();
  CVMFS_ASSIGN_OR_RETURN(publisher::ServerConfig config,
                         publisher::ServerConfig::Load(paths_, fqrn));
  if (config.on_gateway())
    return cvmfs::Status::InvalidArgument(
        fqrn + ": its storage is another gateway (" + config.gateway_url +
        "); the gateway serves repositories with local or S3 storage");
  CVMFS_ASSIGN_OR_RETURN(std::unique_ptr<cvmfs::ObjectStore> store,
                         publisher::OpenObjectStore(config));
  cvmfs::ObjectStore* raw = store.get();
  stores_[fqrn] = std::move(store);
  return raw;
}

}  // namespace gateway
