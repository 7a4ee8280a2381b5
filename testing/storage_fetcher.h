// StorageFetcher: a Fetcher that serves a Stratum 0 storage directory (as
// it is at the time of each request), for client tests that need a real
// published repository but no HTTP. Counts requests per path; can answer
// 404 for hidden paths, serve other bytes for overridden ones, and hold
// back one path until Release().
//
// Thread safety: all methods may be called concurrently.
#ifndef TESTING_STORAGE_FETCHER_H_
#define TESTING_STORAGE_FETCHER_H_

#include <condition_variable>
#include <map>
#include <set>
#include <string>

#include "cvmfs/mutex.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/object_store.h"

namespace cvmfs::testing {

class StorageFetcher : public Fetcher {
 public:
  explicit StorageFetcher(std::string storage_dir);

  DownloadResult Fetch(const DownloadRequest& request,
                       DownloadSink* sink) override;

  // Requests for `url_path` so far (including held and hidden ones).
  int Requests(const std::string& url_path);
  // Answers 404 for `url_path` from now on.
  void Hide(const std::string& url_path);
  // Serves `bytes` instead of the stored file for `url_path`.
  void Override(const std::string& url_path, std::string bytes);
  // Requests for `url_path` wait until Release().
  void Hold(const std::string& url_path);
  void Release();

 private:
  LocalObjectStore store_;
  Mutex mu_;                         // guards the members below; leaf lock
  std::condition_variable gate_cv_;  // held_ changed
  std::map<std::string, int> requests_ GUARDED_BY(mu_);
  std::set<std::string> hidden_ GUARDED_BY(mu_);
  std::map<std::string, std::string> overrides_ GUARDED_BY(mu_);
  std::string held_ GUARDED_BY(mu_);
};

}  // namespace cvmfs::testing

#endif  // TESTING_STORAGE_FETCHER_H_
