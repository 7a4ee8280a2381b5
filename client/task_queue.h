// TaskQueue: a few background threads running queued jobs (chunk
// read-ahead). Jobs beyond `max_pending` are dropped: read-ahead is a hint,
// never a debt. The destructor drops what is still queued and joins.
//
// Thread safety: Post() may be called from any thread.
#ifndef CLIENT_TASK_QUEUE_H_
#define CLIENT_TASK_QUEUE_H_

#include <condition_variable>
#include <deque>
#include <functional>
#include <thread>
#include <vector>

#include "cvmfs/mutex.h"

namespace cvmfs::client {

class TaskQueue {
 public:
  TaskQueue(int threads, size_t max_pending);
  ~TaskQueue();
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;

  // False if the job was dropped because the queue is full (or stopped).
  bool Post(std::function<void()> job) EXCLUDES(mu_);
  // Drops what is queued and waits for running jobs; idempotent.
  void Shutdown() EXCLUDES(mu_);
  // Waits until no job is queued or running (jobs posted meanwhile, also
  // by the jobs themselves, are waited for too).
  void WaitIdle() EXCLUDES(mu_);

 private:
  void Run() EXCLUDES(mu_);

  const size_t max_pending_;
  // Guards jobs_, running_, stop_; leaf lock (not held while a job runs).
  cvmfs::Mutex mu_;
  std::condition_variable cv_;       // a job was queued, or stopping
  std::condition_variable idle_cv_;  // jobs_ empty and running_ == 0
  std::deque<std::function<void()>> jobs_ GUARDED_BY(mu_);
  int running_ GUARDED_BY(mu_) = 0;
  bool stop_ GUARDED_BY(mu_) = false;
  // Not guarded: filled by the constructor, joined by Shutdown().
  std::vector<std::thread> threads_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_TASK_QUEUE_H_
