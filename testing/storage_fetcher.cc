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
    MutexLock lock(&mu_);
    ++requests_[request.url_path];
    while (request.url_path == held_) lock.Wait(&gate_cv_);
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
  MutexLock lock(&mu_);
  auto it = requests_.find(url_path);
  return it == requests_.end() ? 0 : it->second;
}

void StorageFetcher::Hide(const std::string& url_path) {
  MutexLock lock(&mu_);
  hidden_.insert(url_path);
}

void StorageFetcher::Override(const std::string& url_path, std::string bytes) {
  MutexLock lock(&mu_);
  overrides_[url_path] = std::move(bytes);
}

void StorageFetcher::Hold(const std::string& url_path) {
  MutexLock lock(&mu_);
  held_ = url_path;
}

void StorageFetcher::Release() {
  {
    MutexLock lock(&mu_);
    held_.clear();
  }
  gate_cv_.notify_all();
}

}  // namespace cvmfs::testing
