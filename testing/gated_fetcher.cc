#include "testing/gated_fetcher.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace cvmfs::testing {

DownloadResult GatedFetcher::Fetch(const DownloadRequest& request,
                                   DownloadSink* sink) {
  {
    MutexLock lock(&mu_);
    ++running_;
    max_running_ = std::max(max_running_, running_);
    ++waiting_;
    cv_.notify_all();
    while (Holds(request.url_path)) lock.Wait(&cv_);
    --waiting_;
    if (on_fetch_) on_fetch_();
  }
  DownloadResult result = inner_->Fetch(request, sink);
  MutexLock lock(&mu_);
  --running_;
  return result;
}

void GatedFetcher::Hold(const std::string& path) {
  MutexLock lock(&mu_);
  held_.insert(path);
}

void GatedFetcher::HoldAll() {
  MutexLock lock(&mu_);
  hold_all_ = true;
}

void GatedFetcher::Release() {
  MutexLock lock(&mu_);
  held_.clear();
  hold_all_ = false;
  cv_.notify_all();
}

bool GatedFetcher::WaitForWaiting(int n) {
  MutexLock lock(&mu_);
  const auto deadline =
      std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (waiting_ < n) {
    if (lock.WaitUntil(&cv_, deadline) == std::cv_status::timeout)
      return waiting_ >= n;
  }
  return true;
}

void GatedFetcher::set_on_fetch(std::function<void()> f) {
  MutexLock lock(&mu_);
  on_fetch_ = std::move(f);
}

int GatedFetcher::max_running() const {
  MutexLock lock(&mu_);
  return max_running_;
}

}  // namespace cvmfs::testing
