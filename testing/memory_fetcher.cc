#include "testing/memory_fetcher.h"

#include <algorithm>
#include <utility>

namespace cvmfs {

DownloadResult MemoryFetcher::Fetch(const DownloadRequest& request,
                                    DownloadSink* sink) {
  Plan plan = MakePlan(request);
  return Deliver(request.url_path, plan, sink);
}

MemoryFetcher::Plan MemoryFetcher::MakePlan(const DownloadRequest& request) {
  MutexLock lock(&mu_);
  const std::string& path = request.url_path;
  requests_[path]++;
  log_.push_back(request);
  Plan plan;
  plan.chunk_size = chunk_size_;
  auto fault = faults_.find(path);
  Faults* f = fault == faults_.end() ? nullptr : &fault->second;
  if (f != nullptr && f->fail_count > 0) {
    f->fail_count--;
    plan.fail = f->fail_status;
    return plan;
  }
  if (f != nullptr && !f->serve_once.empty()) {
    plan.found = true;
    plan.body = std::move(f->serve_once.front());
    f->serve_once.pop_front();
  } else if (auto file = files_.find(path); file != files_.end()) {
    plan.found = true;
    plan.body = file->second;
  }
  if (plan.found && f != nullptr && f->truncate_count > 0) {
    f->truncate_count--;
    plan.truncated = f->truncate_size < plan.body.size();
    plan.body.resize(std::min(plan.body.size(), f->truncate_size));
  }
  return plan;
}

DownloadResult MemoryFetcher::Deliver(const std::string& path, const Plan& plan,
                                      DownloadSink* sink) {
  DownloadResult result;
  result.host = kHost;
  result.proxy = "DIRECT";
  const std::string url = std::string(kHost) + path;
  if (!plan.fail.ok()) {
    result.status = plan.fail;
    return result;
  }
  if (!plan.found) {
    result.http_code = 404;
    result.status = Status::NotFound("HTTP 404 for " + url);
    return result;
  }
  result.http_code = 200;
  const size_t chunk = std::max<size_t>(plan.chunk_size, 1);
  for (size_t pos = 0; pos < plan.body.size(); pos += chunk) {
    size_t n = std::min(chunk, plan.body.size() - pos);
    Status st = sink->Write(plan.body.data() + pos, n);
    if (!st.ok()) {
      result.status = st;
      return result;
    }
    result.bytes += n;
  }
  if (plan.truncated) {
    result.status = Status::Unavailable(
        "failed to download " + url +
        " (proxy DIRECT): transfer closed after " +
        std::to_string(result.bytes) + " bytes (injected truncation)");
  }
  return result;
}

void MemoryFetcher::Put(const std::string& path, std::string bytes) {
  MutexLock lock(&mu_);
  files_[path] = std::move(bytes);
}

void MemoryFetcher::Remove(const std::string& path) {
  MutexLock lock(&mu_);
  files_.erase(path);
}

void MemoryFetcher::set_chunk_size(size_t size) {
  MutexLock lock(&mu_);
  chunk_size_ = size;
}

size_t MemoryFetcher::chunk_size() const {
  MutexLock lock(&mu_);
  return chunk_size_;
}

void MemoryFetcher::FailNext(const std::string& path, int count,
                             Status status) {
  if (status.ok()) {
    status = Status::Unavailable("injected failure for " + path);
  }
  MutexLock lock(&mu_);
  Faults& f = faults_[path];
  f.fail_count = count;
  f.fail_status = std::move(status);
}

void MemoryFetcher::ServeOnce(const std::string& path, std::string bytes) {
  MutexLock lock(&mu_);
  faults_[path].serve_once.push_back(std::move(bytes));
}

void MemoryFetcher::TruncateNext(const std::string& path, size_t size,
                                 int count) {
  MutexLock lock(&mu_);
  Faults& f = faults_[path];
  f.truncate_count = count;
  f.truncate_size = size;
}

uint64_t MemoryFetcher::requests(const std::string& path) const {
  MutexLock lock(&mu_);
  auto it = requests_.find(path);
  return it == requests_.end() ? 0 : it->second;
}

uint64_t MemoryFetcher::total_requests() const {
  MutexLock lock(&mu_);
  return log_.size();
}

std::vector<DownloadRequest> MemoryFetcher::request_log() const {
  MutexLock lock(&mu_);
  return log_;
}

void MemoryFetcher::ResetCounters() {
  MutexLock lock(&mu_);
  requests_.clear();
  log_.clear();
}

}  // namespace cvmfs
