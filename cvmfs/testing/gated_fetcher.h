// GatedFetcher: a Fetcher that, while closed (Close() until Open()), holds
// every request for an object (a path under data/), then passes it to the
// inner fetcher; the manifest and its companions always go through. Starts
// open. For tests of what happens while downloads are in flight.
//
// Thread safety: all methods may be called concurrently.
#ifndef CVMFS_TESTING_GATED_FETCHER_H_
#define CVMFS_TESTING_GATED_FETCHER_H_

#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>

#include "cvmfs/network/fetcher.h"

namespace cvmfs::testing {

class GatedFetcher : public Fetcher {
 public:
  explicit GatedFetcher(std::unique_ptr<Fetcher> inner);

  DownloadResult Fetch(const DownloadRequest& request,
                       DownloadSink* sink) override;

  Fetcher* inner() { return inner_.get(); }
  // Lets the held requests and every later one through.
  void Open();
  // Holds requests again from now on.
  void Close();
  // Waits up to `limit` until at least `n` requests are held.
  bool WaitHeld(int n, std::chrono::milliseconds limit);

 private:
  std::unique_ptr<Fetcher> inner_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = true;
  int held_ = 0;
};

}  // namespace cvmfs::testing

#endif  // CVMFS_TESTING_GATED_FETCHER_H_
