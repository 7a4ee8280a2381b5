#include "client/prefetch/open_recorder.h"

namespace cvmfs::client {

OpenRecorder::OpenRecorder(size_t max_paths) : max_paths_(max_paths) {}

void OpenRecorder::Start() {
  cvmfs::MutexLock lock(&mu_);
  current_ = Recording();
  seen_.clear();
  recording_.store(true, std::memory_order_release);
}

std::optional<OpenRecorder::Recording> OpenRecorder::Stop() {
  cvmfs::MutexLock lock(&mu_);
  if (!recording_.load(std::memory_order_acquire)) return std::nullopt;
  recording_.store(false, std::memory_order_release);
  Recording done = std::move(current_);
  current_ = Recording();
  seen_.clear();
  return done;
}

size_t OpenRecorder::size() const {
  cvmfs::MutexLock lock(&mu_);
  return current_.paths.size();
}

void OpenRecorder::OnOpen(const std::string& path) {
  if (!recording_.load(std::memory_order_acquire)) return;
  cvmfs::MutexLock lock(&mu_);
  // Checked again under the lock: Stop() may have run meanwhile.
  if (!recording_.load(std::memory_order_relaxed)) return;
  if (seen_.count(path)) return;
  if (current_.paths.size() >= max_paths_) {
    // Counted once per path: remember it without keeping it in the list.
    if (seen_.size() < 2 * max_paths_) seen_.insert(path);
    ++current_.dropped;
    return;
  }
  seen_.insert(path);
  current_.paths.push_back(path);
}

}  // namespace cvmfs::client
