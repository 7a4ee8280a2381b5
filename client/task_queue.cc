#include "client/task_queue.h"

namespace cvmfs::client {

TaskQueue::TaskQueue(int threads, size_t max_pending)
    : max_pending_(max_pending) {
  for (int i = 0; i < threads; ++i) threads_.emplace_back([this] { Run(); });
}

TaskQueue::~TaskQueue() { Shutdown(); }

void TaskQueue::Shutdown() {
  {
    cvmfs::MutexLock lock(&mu_);
    stop_ = true;
    jobs_.clear();
  }
  cv_.notify_all();
  for (auto& t : threads_)
    if (t.joinable()) t.join();
}

bool TaskQueue::Post(std::function<void()> job) {
  {
    cvmfs::MutexLock lock(&mu_);
    if (stop_ || jobs_.size() >= max_pending_) return false;
    jobs_.push_back(std::move(job));
  }
  cv_.notify_one();
  return true;
}

void TaskQueue::WaitIdle() {
  cvmfs::MutexLock lock(&mu_);
  while (!((stop_ || jobs_.empty()) && running_ == 0)) lock.Wait(&idle_cv_);
}

void TaskQueue::Run() {
  cvmfs::MutexLock lock(&mu_);
  for (;;) {
    while (!stop_ && jobs_.empty()) lock.Wait(&cv_);
    if (stop_) break;
    std::function<void()> job = std::move(jobs_.front());
    jobs_.pop_front();
    ++running_;
    lock.Unlock();
    job();
    job = nullptr;  // what it holds is released outside the lock
    lock.Lock();
    --running_;
    if (jobs_.empty() && running_ == 0) idle_cv_.notify_all();
  }
  if (running_ == 0) idle_cv_.notify_all();
}

}  // namespace cvmfs::client
