#include "client/prefetch/round_trip_estimate.h"

#include <algorithm>
#include <chrono>

namespace cvmfs::client {

void RoundTripEstimate::Add(Clock::Duration took) {
  const auto us = std::chrono::duration_cast<std::chrono::microseconds>(took);
  // At least 1 us: 0 means "no sample yet".
  const uint64_t sample =
      static_cast<uint64_t>(std::max<int64_t>(us.count(), 1));
  cvmfs::MutexLock lock(&mu_);
  current_min_us_ = std::min(current_min_us_, sample);
  if (++in_current_ == kWindow) {
    last_min_us_ = current_min_us_;
    current_min_us_ = UINT64_MAX;
    in_current_ = 0;
  }
  estimate_us_.store(std::min(current_min_us_, last_min_us_),
                     std::memory_order_relaxed);
}

}  // namespace cvmfs::client
