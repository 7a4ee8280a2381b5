#include "cvmfs/network/connection_limit.h"

#include <algorithm>

namespace cvmfs {

ConnectionLimit::ConnectionLimit(int max, const Clock* clock)
    : max_(std::max(1, max)),
      clock_(clock),
      limit_(std::min(kInitial, max_)),
      threshold_(max_),
      ceiling_(max_),
      last_decrease_(clock->Now() - std::chrono::hours(1)) {}

bool ConnectionLimit::Slow(Duration sample, Duration* base) {
  if (*base == Duration::zero()) {
    *base = sample;
    return false;
  }
  const bool slow =
      sample > kSlowFactor * *base && sample - *base > kSlowExcess;
  const Duration counted = std::min(sample, 2 * *base);
  *base += (counted - *base) / 8;
  return slow;
}

void ConnectionLimit::Record(const Sample& s) {
  const bool dropped_syn = s.new_connection && s.connect >= kDroppedSyn;
  if (s.failed || dropped_syn) {
    Decrease(s, dropped_syn);
    return;
  }
  bool slow = false;
  if (s.new_connection) slow = Slow(s.connect, &connect_base_);
  if (Slow(s.first_byte, &first_byte_base_)) {
    slow = slow || ++slow_first_bytes_ >= 2;
  } else {
    slow_first_bytes_ = 0;
  }
  if (slow) {
    Decrease(s, false);
  } else if (s.in_use) {
    Increase();
  }
}

void ConnectionLimit::Decrease(const Sample& s, bool dropped_syn) {
  if (s.started < last_decrease_) return;  // saw the load before the last one
  const int flight = s.in_flight > 0 ? std::min(s.in_flight, limit_) : limit_;
  ceiling_ = dropped_syn ? std::max(1, flight - 1) : max_;
  limit_ = std::max(1, flight / 2);
  threshold_ = limit_;
  healthy_in_round_ = 0;
  last_decrease_ = clock_->Now();
}

void ConnectionLimit::Increase() {
  // The ceiling holds for kCeilingHold after the last decrease, then the
  // limit may probe up to max again.
  const bool held = clock_->Now() - last_decrease_ < kCeilingHold;
  if (limit_ >= (held ? std::min(ceiling_, max_) : max_)) return;
  if (limit_ < threshold_) {
    ++limit_;
    return;
  }
  if (++healthy_in_round_ >= limit_) {
    healthy_in_round_ = 0;
    ++limit_;
  }
}

}  // namespace cvmfs
