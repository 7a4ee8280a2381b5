#include "testing/storage_fetcher.h"

#include <utility>

namespace cvmfs::testing {

StorageFetcher::StorageFetcher(std::string storage_dir)
    : store_(std::move(storage_dir)) {}

DownloadResult StorageFetcher::Fetch(const DownloadRequest& request,
                                     DownloadSink* sink) {
  DownloadResult r;
  std::string bytes;
  bool overridden = false;
  {
    std::unique_lock<std::mutex> lock(mu_);
    ++requests_[request.url_path];
    gate_cv_.wait(lock, [&] { return request.url_path != held_; });
    if (hidden_.count(request.url_path) > 0) {
      r.status = Status::NotFound(request.url_path + ": 404");
      return r;
    }
    auto it = overrides_.find(request.url_path);
    if (it != overrides_.end()) {
      bytes = it->second;
      overridden = true;
    }
  }
  if (!overridden) {
    auto got = store_.Get(request.url_path);
    if (!got.ok()) {
      r.status = got.status();
      return r;
    }
    bytes = std::move(got).value();
  }
  r.status = sink->Write(bytes.data(), bytes.size());
  r.bytes = bytes.size();
  return r;
}

int StorageFetcher::Requests(const std::string& url_path) {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = requests_.find(url_path);
  return it == requests_.end() ? 0 : it->second;
}

void StorageFetcher::Hide(const std::string& url_path) {
  std::lock_guard<std::mutex> lock(mu_);
  hidden_.insert(url_path);
}

void StorageFetcher::Override(const std::string& url_path, std::string bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  overrides_[url_path] = std::move(bytes);
}

void StorageFetcher::Hold(const std::string& url_path) {
  std::lock_guard<std::mutex> lock(mu_);
  held_ = url_path;
}

void StorageFetcher::Release() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    held_.clear();
  }
  gate_cv_.notify_all();
}

}  // namespace cvmfs::testing
