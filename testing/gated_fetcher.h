// GatedFetcher: a Fetcher that holds requests for chosen paths (or every
// request, while HoldAll) until Release(), then passes them to the inner
// fetcher; counts how many run at once. For tests of what happens while
// downloads are in flight (prefetch, collapsing, demand accounting).
//
// Thread safety: all methods may be called concurrently.
#ifndef TESTING_GATED_FETCHER_H_
#define TESTING_GATED_FETCHER_H_

#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <set>
#include <string>

#include "cvmfs/network/fetcher.h"

namespace cvmfs::testing {

class GatedFetcher : public Fetcher {
 public:
  explicit GatedFetcher(Fetcher* inner) : inner_(inner) {}  // borrowed
  explicit GatedFetcher(std::unique_ptr<Fetcher> inner)
      : owned_(std::move(inner)), inner_(owned_.get()) {}

  DownloadResult Fetch(const DownloadRequest& request,
                       DownloadSink* sink) override;

  Fetcher* inner() { return inner_; }
  void Hold(const std::string& path);
  void HoldAll();
  // Lets every held request through and holds nothing from now on.
  void Release();
  // Waits up to 10 s until `n` requests wait at the gate.
  bool WaitForWaiting(int n);
  // Called (under the gate's lock) as each request passes the gate.
  void set_on_fetch(std::function<void()> f);
  int max_running() const;

 private:
  bool Holds(const std::string& path) const {
    return hold_all_ || held_.count(path) > 0;
  }

  std::unique_ptr<Fetcher> owned_;
  Fetcher* inner_;
  mutable std::mutex mu_;
  std::condition_variable cv_;
  std::set<std::string> held_;
  bool hold_all_ = false;
  std::function<void()> on_fetch_;
  int waiting_ = 0, running_ = 0, max_running_ = 0;
};

}  // namespace cvmfs::testing

#endif  // TESTING_GATED_FETCHER_H_
