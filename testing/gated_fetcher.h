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
#include <set>
#include <string>

#include "cvmfs/mutex.h"
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
  bool Holds(const std::string& path) const REQUIRES(mu_) {
    return hold_all_ || held_.count(path) > 0;
  }

  std::unique_ptr<Fetcher> owned_;
  Fetcher* inner_;
  // Guards the members below. on_fetch_ runs with it held: any lock the
  // callback takes comes after this one; otherwise a leaf lock.
  mutable Mutex mu_;
  std::condition_variable cv_;  // the gate opened, or a request arrived
  std::set<std::string> held_ GUARDED_BY(mu_);
  bool hold_all_ GUARDED_BY(mu_) = false;
  std::function<void()> on_fetch_ GUARDED_BY(mu_);
  int waiting_ GUARDED_BY(mu_) = 0;
  int running_ GUARDED_BY(mu_) = 0;
  int max_running_ GUARDED_BY(mu_) = 0;
};

}  // namespace cvmfs::testing

#endif  // TESTING_GATED_FETCHER_H_
