// RoundTripEstimate: how long a small download takes on the link when
// nothing else slows it down: the shortest of the recent samples (a
// windowed minimum, as TCP's BBR estimates its min_rtt).
//
// Queueing behind other transfers (parallel readers, prefetch, a loopback
// or LAN server sharing two cores with them) only lengthens a sample, so
// the minimum over a window sees through it, where an average of the same
// samples takes a busy fast link for a slow one: 64 parallel readers with
// no added latency averaged 9.3 ms per small download, which turned
// speculation on and kept prefetch running against the readers (1.1x
// slower than without prefetch).
//
//   samples ─► windows of kWindow ─► estimate = min(this window, the last)
//
// A link that gets faster is seen at once; one that gets slower after at
// most 2 x kWindow samples.
//
// Thread safety: Add() and us() may be called concurrently; us() is one
// atomic load (read on every open).
#ifndef CLIENT_PREFETCH_ROUND_TRIP_ESTIMATE_H_
#define CLIENT_PREFETCH_ROUND_TRIP_ESTIMATE_H_

#include <atomic>
#include <cstdint>

#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"

namespace cvmfs::client {

class RoundTripEstimate {
 public:
  static constexpr int kWindow = 16;

  void Add(Clock::Duration took) EXCLUDES(mu_);
  // In microseconds (a sample counts as at least 1); 0 before the first.
  uint64_t us() const { return estimate_us_.load(std::memory_order_relaxed); }

 private:
  cvmfs::Mutex mu_;  // guards the windows; leaf lock
  uint64_t current_min_us_ GUARDED_BY(mu_) = UINT64_MAX;
  uint64_t last_min_us_ GUARDED_BY(mu_) = UINT64_MAX;
  int in_current_ GUARDED_BY(mu_) = 0;
  std::atomic<uint64_t> estimate_us_{0};
};

}  // namespace cvmfs::client

#endif  // CLIENT_PREFETCH_ROUND_TRIP_ESTIMATE_H_
