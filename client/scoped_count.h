// ScopedCount: counts an activity for as long as it runs.
//
// Increments an atomic counter when constructed and decrements it when
// destroyed, on every return path. A null counter counts nothing, for an
// activity counted only in some cases:
//
//   ScopedCount waiting(request.speculative ? nullptr : &demand_waiting_);
#ifndef CLIENT_SCOPED_COUNT_H_
#define CLIENT_SCOPED_COUNT_H_

#include <atomic>

namespace cvmfs::client {

class ScopedCount {
 public:
  explicit ScopedCount(std::atomic<int>* counter) : counter_(counter) {
    if (counter_) ++*counter_;
  }
  ~ScopedCount() {
    if (counter_) --*counter_;
  }
  ScopedCount(const ScopedCount&) = delete;
  ScopedCount& operator=(const ScopedCount&) = delete;

 private:
  std::atomic<int>* counter_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_SCOPED_COUNT_H_
