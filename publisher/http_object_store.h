// HttpObjectStore: a repository read over HTTP from its stratum 0 URL
// (CVMFS_STRATUM0), as a publisher machine of a gateway sees it
// (doc/gateway.md, "Publisher machines"): Get, Exists and Size ask
// `<url>/<name>`; the store is read-only (Put and Remove answer
// NotSupported with `read_only_reason`, e.g. "published through the gateway
// ..."), and cannot list objects.
//
// Each request uses its own libcurl handle, directly (no proxy), with a
// connect timeout of 10 s and a transfer timeout of 300 s: thread-safe.
#ifndef PUBLISHER_HTTP_OBJECT_STORE_H_
#define PUBLISHER_HTTP_OBJECT_STORE_H_

#include <string>
#include <vector>

#include "cvmfs/object_store.h"

namespace publisher {

class HttpObjectStore : public cvmfs::ObjectStore {
 public:
  HttpObjectStore(std::string base_url, std::string read_only_reason);

  bool Exists(const std::string& name) override;
  cvmfs::Status Put(const std::string& name, std::string_view bytes) override;
  cvmfs::Result<std::string> Get(const std::string& name) override;
  cvmfs::Result<uint64_t> Size(const std::string& name) override;
  cvmfs::Status Remove(const std::string& name) override;
  cvmfs::Result<std::vector<std::string>> ListObjects() override;

 private:
  // GET (or HEAD when `body` is null) of `name`; NotFound on 404.
  cvmfs::Status Fetch(const std::string& name, std::string* body,
                      uint64_t* length);

  std::string base_url_;  // no trailing '/'
  std::string read_only_reason_;
};

}  // namespace publisher

#endif  // PUBLISHER_HTTP_OBJECT_STORE_H_
