// MemoryFetcher: a Fetcher over an in-memory map of url_path -> bytes, for
// unit tests of the components that download (manifest, catalogs, cache).
//
// Bodies are delivered to the sink in chunks of chunk_size() bytes so that
// streaming consumers see more than one Write. Fault hooks act on the next
// requests of one path and are consumed in this order per request:
//   1. FailNext:        the request fails with the given status, no bytes
//   2. ServeOnce:       the request is served these bytes instead
//   3. TruncateNext:    only a prefix is written, then Unavailable
// A path without content answers NotFound (http_code 404). There are no
// retries here: one Fetch is one request, so Reset() is never called.
//
// Thread safety: all methods may be called concurrently. The sink is called
// without the internal lock held, so a sink may call back into this object.
#ifndef TESTING_MEMORY_FETCHER_H_
#define TESTING_MEMORY_FETCHER_H_

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <string>
#include <vector>

#include "cvmfs/mutex.h"
#include "cvmfs/network/fetcher.h"

namespace cvmfs {

class MemoryFetcher : public Fetcher {
 public:
  static constexpr const char* kHost = "memory://";

  DownloadResult Fetch(const DownloadRequest& request,
                       DownloadSink* sink) override;

  // Content.
  void Put(const std::string& path, std::string bytes);
  void Remove(const std::string& path);
  void set_chunk_size(size_t size);
  size_t chunk_size() const;

  // Fault hooks (see the order above).
  // The next `count` requests for `path` fail with `status` (an ok status
  // is replaced by Unavailable). Replaces an earlier FailNext for `path`.
  void FailNext(const std::string& path, int count, Status status);
  // The next request for `path` gets `bytes` (even if `path` has no content);
  // several calls queue up, one per request.
  void ServeOnce(const std::string& path, std::string bytes);
  // The next `count` requests for `path` write only the first `size` bytes
  // and then fail with Unavailable, like a connection closed mid-body.
  void TruncateNext(const std::string& path, size_t size, int count = 1);

  // Counters and the log of requests, in arrival order.
  uint64_t requests(const std::string& path) const;
  uint64_t total_requests() const;
  std::vector<DownloadRequest> request_log() const;
  void ResetCounters();

 private:
  struct Faults {
    int fail_count = 0;
    Status fail_status;
    std::deque<std::string> serve_once;
    int truncate_count = 0;
    size_t truncate_size = 0;
  };
  // What one request will do, decided under the lock.
  struct Plan {
    Status fail;  // non-ok: fail without bytes
    bool found = false;
    std::string body;
    bool truncated = false;
    size_t chunk_size = 0;
  };

  Plan MakePlan(const DownloadRequest& request) EXCLUDES(mu_);
  static DownloadResult Deliver(const std::string& path, const Plan& plan,
                                DownloadSink* sink);

  mutable Mutex mu_;  // guards every member below; leaf lock
  std::map<std::string, std::string> files_ GUARDED_BY(mu_);
  std::map<std::string, Faults> faults_ GUARDED_BY(mu_);
  std::map<std::string, uint64_t> requests_ GUARDED_BY(mu_);
  std::vector<DownloadRequest> log_ GUARDED_BY(mu_);
  size_t chunk_size_ GUARDED_BY(mu_) = 16 * 1024;
};

}  // namespace cvmfs

#endif  // TESTING_MEMORY_FETCHER_H_
