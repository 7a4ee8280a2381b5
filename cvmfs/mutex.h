// Mutex and MutexLock: std::mutex and std::unique_lock with the Clang
// thread-safety annotations of cvmfs/thread_annotations.h, so that the
// members a mutex guards can be declared GUARDED_BY(mu_) and the compiler
// checks every access (test/style/thread_safety_check.sh).
//
//   Mutex mu_;                       // guards queue_; leaf lock
//   std::condition_variable cv_;     // queue_ not empty
//   std::deque<int> queue_ GUARDED_BY(mu_);
//
//   MutexLock lock(&mu_);
//   while (queue_.empty()) lock.Wait(&cv_);  // the condition is checked with
//   int v = queue_.front();                  // mu_ held, so it is annotated
//
// Waiting on a std::condition_variable goes through the MutexLock that holds
// the mutex (Wait, WaitFor, WaitUntil): the mutex is released while waiting and
// held again when it returns, which is all the analysis needs to know. Write
// the condition as a loop around Wait (as above) rather than as a predicate
// lambda: the analysis does not see that a lambda runs with the lock held.
//
// Thread safety: a Mutex is what makes other things thread-safe; a MutexLock
// belongs to the one thread that created it.
#ifndef CVMFS_MUTEX_H_
#define CVMFS_MUTEX_H_

#include <chrono>
#include <condition_variable>
#include <mutex>

#include "cvmfs/thread_annotations.h"

namespace cvmfs {

class CAPABILITY("mutex") Mutex {
 public:
  Mutex() = default;
  Mutex(const Mutex&) = delete;
  Mutex& operator=(const Mutex&) = delete;

  // Prefer MutexLock; these are for locks that do not follow a scope.
  void Lock() ACQUIRE() { mu_.lock(); }
  void Unlock() RELEASE() { mu_.unlock(); }
  // Tells the analysis the caller holds the lock (not checked at run time).
  void AssertHeld() const ASSERT_CAPABILITY(this) {}

 private:
  friend class MutexLock;
  std::mutex mu_;
};

// Holds `mu` from construction to destruction (or to Unlock()).
class SCOPED_CAPABILITY MutexLock {
 public:
  explicit MutexLock(Mutex* mu) ACQUIRE(mu) : lock_(mu->mu_) {}
  ~MutexLock() RELEASE() {}
  MutexLock(const MutexLock&) = delete;
  MutexLock& operator=(const MutexLock&) = delete;

  // Gives the mutex up before the end of the scope, and takes it again.
  void Unlock() RELEASE() { lock_.unlock(); }
  void Lock() ACQUIRE() { lock_.lock(); }

  // Releases the mutex, blocks until `cv` is notified (or a spurious
  // wake-up), and takes the mutex again before returning. Call in a loop
  // that checks the condition.
  void Wait(std::condition_variable* cv) { cv->wait(lock_); }
  // The same, but returns std::cv_status::timeout after `timeout` at most
  // (WaitFor) or at `deadline` (WaitUntil).
  template <class Rep, class Period>
  std::cv_status WaitFor(std::condition_variable* cv,
                         const std::chrono::duration<Rep, Period>& timeout) {
    return cv->wait_for(lock_, timeout);
  }
  template <class Clock, class Duration>
  std::cv_status WaitUntil(
      std::condition_variable* cv,
      const std::chrono::time_point<Clock, Duration>& deadline) {
    return cv->wait_until(lock_, deadline);
  }

 private:
  std::unique_lock<std::mutex> lock_;
};

}  // namespace cvmfs

#endif  // CVMFS_MUTEX_H_
