#include "testing/gated_fetcher.h"

#include <algorithm>
#include <chrono>
#include <utility>

namespace cvmfs::testing {

DownloadResult GatedFetcher::Fetch(const DownloadRequest& request,
                                   DownloadSink* sink) {
  {
    std::unique_lock<std::mutex> lock(mu_);
    ++running_;
    max_running_ = std::max(max_running_, running_);
    ++waiting_;
    cv_.notify_all();
    cv_.wait(lock, [&] { return !Holds(request.url_path); });
    --waiting_;
    if (on_fetch_) on_fetch_();
  }
  DownloadResult result = inner_->Fetch(request, sink);
  std::lock_guard<std::mutex> lock(mu_);
  --running_;
  return result;
}

void GatedFetcher::Hold(const std::string& path) {
  std::lock_guard<std::mutex> lock(mu_);
  held_.insert(path);
}

void GatedFetcher::HoldAll() {
  std::lock_guard<std::mutex> lock(mu_);
  hold_all_ = true;
}

void GatedFetcher::Release() {
  std::lock_guard<std::mutex> lock(mu_);
  held_.clear();
  hold_all_ = false;
  cv_.notify_all();
}

bool GatedFetcher::WaitForWaiting(int n) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, std::chrono::seconds(10),
                      [&] { return waiting_ >= n; });
}

void GatedFetcher::set_on_fetch(std::function<void()> f) {
  std::lock_guard<std::mutex> lock(mu_);
  on_fetch_ = std::move(f);
}

int GatedFetcher::max_running() const {
  std::lock_guard<std::mutex> lock(mu_);
  return max_running_;
}

}  // namespace cvmfs::testing
