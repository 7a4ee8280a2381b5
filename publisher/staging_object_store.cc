#include "publisher/staging_object_store.h"

namespace publisher {

cvmfs::Result<std::string> StagingObjectStore::Get(const std::string& name) {
  auto staged = staging_.Get(name);
  if (staged.ok() || !staged.status().IsNotFound()) return staged;
  return upstream_->Get(name);
}

cvmfs::Result<uint64_t> StagingObjectStore::Size(const std::string& name) {
  auto staged = staging_.Size(name);
  if (staged.ok() || !staged.status().IsNotFound()) return staged;
  return upstream_->Size(name);
}

}  // namespace publisher
