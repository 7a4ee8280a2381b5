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
#include <mutex>
#include <thread>
#include <vector>

namespace cvmfs::client {

class TaskQueue {
 public:
  TaskQueue(int threads, size_t max_pending);
  ~TaskQueue();
  TaskQueue(const TaskQueue&) = delete;
  TaskQueue& operator=(const TaskQueue&) = delete;

  // False if the job was dropped because the queue is full (or stopped).
  bool Post(std::function<void()> job);
  // Drops what is queued and waits for running jobs; idempotent.
  void Shutdown();
  // Waits until no job is queued or running (jobs posted meanwhile, also
  // by the jobs themselves, are waited for too).
  void WaitIdle();

 private:
  void Run();

  const size_t max_pending_;
  std::mutex mu_;  // guards jobs_, running_, stop_
  std::condition_variable cv_;
  std::condition_variable idle_cv_;  // jobs_ empty and running_ == 0
  std::deque<std::function<void()>> jobs_;
  int running_ = 0;
  bool stop_ = false;
  std::vector<std::thread> threads_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_TASK_QUEUE_H_
