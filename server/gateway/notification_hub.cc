#include "server/gateway/notification_hub.h"

#include <utility>

namespace gateway {

void NotificationHub::Publish(const std::string& fqrn, std::string message) {
  {
    cvmfs::MutexLock lock(&mu_);
    latest_[fqrn] = Latest{++seq_, std::move(message)};
  }
  changed_.notify_all();
}

uint64_t NotificationHub::Cursor(const std::string& fqrn) {
  cvmfs::MutexLock lock(&mu_);
  auto it = latest_.find(fqrn);
  return it == latest_.end() ? 0 : it->second.seq;
}

std::optional<std::string> NotificationHub::WaitNext(
    const std::string& fqrn, uint64_t* cursor,
    std::chrono::milliseconds timeout) {
  auto deadline = std::chrono::steady_clock::now() + timeout;
  cvmfs::MutexLock lock(&mu_);
  while (!stopped_) {
    auto it = latest_.find(fqrn);
    if (it != latest_.end() && it->second.seq > *cursor) {
      *cursor = it->second.seq;
      return it->second.message;
    }
    if (lock.WaitUntil(&changed_, deadline) == std::cv_status::timeout)
      return std::nullopt;
  }
  return std::nullopt;
}

void NotificationHub::Shutdown() {
  {
    cvmfs::MutexLock lock(&mu_);
    stopped_ = true;
  }
  changed_.notify_all();
}

}  // namespace gateway
