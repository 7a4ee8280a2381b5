// RepositoryStores: the storage of each repository the gateway serves, as
// its server.conf names it (CVMFS_UPSTREAM_STORAGE, publisher/server_config.h),
// opened on first use and kept for the gateway's life: a directory
// (local,...) or an S3 bucket (S3,...@<config file>), through the
// publisher's OpenObjectStore. A repository whose own upstream is a
// gateway is refused.
//
// Thread safety: Get() may be called from any thread; the stores returned
// are thread-safe and live as long as this object.
#ifndef SERVER_GATEWAY_REPOSITORY_STORES_H_
#define SERVER_GATEWAY_REPOSITORY_STORES_H_

#include <map>
#include <memory>
#include <string>

#include "cvmfs/mutex.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace gateway {

class RepositoryStores {
 public:
  explicit RepositoryStores(cvmfs::SystemPaths paths)
      : paths_(std::move(paths)) {}
  cvmfs::Result<cvmfs::ObjectStore*> Get(const std::string& fqrn);

 private:
  const cvmfs::SystemPaths paths_;
  cvmfs::Mutex mu_;  // guards stores_; leaf lock
  std::map<std::string, std::unique_ptr<cvmfs::ObjectStore>> stores_
      GUARDED_BY(mu_);
};

}  // namespace gateway

#endif  // SERVER_GATEWAY_REPOSITORY_STORES_H_
