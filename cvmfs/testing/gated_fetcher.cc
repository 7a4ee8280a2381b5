#include "cvmfs/testing/gated_fetcher.h"

#include <utility>

namespace cvmfs::testing {

GatedFetcher::GatedFetcher(std::unique_ptr<Fetcher> inner)
    : inner_(std::move(inner)) {}

DownloadResult GatedFetcher::Fetch(const DownloadRequest& request,
                                   DownloadSink* sink) {
  if (request.url_path.rfind("data/", 0) == 0) {
    std::unique_lock<std::mutex> lock(mu_);
    ++held_;
    cv_.notify_all();
    cv_.wait(lock, [this] { return open_; });
    --held_;
  }
  return inner_->Fetch(request, sink);
}

void GatedFetcher::Open() {
  std::lock_guard<std::mutex> lock(mu_);
  open_ = true;
  cv_.notify_all();
}

void GatedFetcher::Close() {
  std::lock_guard<std::mutex> lock(mu_);
  open_ = false;
}

bool GatedFetcher::WaitHeld(int n, std::chrono::milliseconds limit) {
  std::unique_lock<std::mutex> lock(mu_);
  return cv_.wait_for(lock, limit, [&] { return held_ >= n; });
}

}  // namespace cvmfs::testing
