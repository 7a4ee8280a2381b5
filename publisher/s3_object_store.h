// S3ObjectStore: a repository's storage root in an S3 bucket under a key
// prefix (CVMFS_UPSTREAM_STORAGE=S3,...; doc/s3.md).
//
// Every operation is one request through an S3Transport, retried with
// exponential backoff on 5xx, 429 and connection errors (max_retries more
// attempts); 403 becomes Permission, 404 NotFound, each naming the key.
// PutFile and ReadTo stream (an object of any size in bounded memory); a
// download that broke after it handed bytes to the sink is not retried.
// PUT of an object is atomic in S3 (readers see the old or the new bytes),
// which is the ObjectStore contract. ListObjects pages through
// ListObjectsV2 with continuation tokens. Thread-safe: concurrent calls
// run concurrently, bounded by the transport's connection limit.
#ifndef PUBLISHER_S3_OBJECT_STORE_H_
#define PUBLISHER_S3_OBJECT_STORE_H_

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/object_store.h"
#include "publisher/s3_transport.h"

namespace publisher {

struct S3StoreOptions {
  std::string prefix;  // key prefix ("" or e.g. "atlas.cern.ch")
  unsigned max_retries = 3;
  bool peek_before_put = true;  // HEAD before PUT, skip existing data/
  std::chrono::milliseconds backoff_initial{100};
  std::chrono::milliseconds backoff_max{5000};
  // Waits between attempts; tests pass a recorder instead of sleeping.
  std::function<void(std::chrono::milliseconds)> sleep;
};

class S3ObjectStore : public cvmfs::ObjectStore {
 public:
  S3ObjectStore(std::unique_ptr<S3Transport> transport, S3StoreOptions options);

  bool Exists(const std::string& name) override;
  cvmfs::Status Put(const std::string& name, std::string_view bytes) override;
  // One HEAD (unless CVMFS_S3_PEEK_BEFORE_PUT is off: a PUT only, as an
  // object's name stands for its bytes), then the PUT if it is missing.
  cvmfs::Result<bool> PutIfAbsent(const std::string& name,
                                  std::string_view bytes) override;
  cvmfs::Result<std::string> Get(const std::string& name) override;
  // Streams the object into `sink` as it arrives.
  cvmfs::Status ReadTo(const std::string& name, const Sink& sink) override;
  // Uploads the file as it is read; leaves it for the caller to remove.
  cvmfs::Status PutFile(const std::string& name,
                        const std::string& file) override;
  // By HEAD (Content-Length), without downloading the object.
  cvmfs::Result<uint64_t> Size(const std::string& name) override;
  cvmfs::Status Remove(const std::string& name) override;
  cvmfs::Result<std::vector<std::string>> ListObjects() override;

 private:
  std::string Key(const std::string& name) const;
  // Sends with retries; maps the final answer to a Status (Ok for 2xx).
  cvmfs::Result<S3Response> Call(const S3Request& request);
  // A data/ object that is there already (CVMFS_S3_PEEK_BEFORE_PUT).
  bool PresentDataObject(const std::string& name);
  cvmfs::Status Upload(S3Request request);

  std::unique_ptr<S3Transport> transport_;
  const S3StoreOptions options_;
};

// Parses one ListObjectsV2 result page: the keys, and the continuation
// token ("" when the listing is complete). Corruption if not a result.
struct ListPage {
  std::vector<std::string> keys;
  std::string next_token;
};
cvmfs::Result<ListPage> ParseListObjectsV2(std::string_view xml);

}  // namespace publisher

#endif  // PUBLISHER_S3_OBJECT_STORE_H_
