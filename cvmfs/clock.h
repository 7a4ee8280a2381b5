// Clock: where timers that must be testable read "now" (the failover reset
// timers of CVMFS_PROXY_RESET_AFTER / CVMFS_HOST_RESET_AFTER). A monotonic
// clock: wall-clock jumps (NTP, a suspended VM) must not reset or freeze
// a timer.
//
//   SteadyClock()  the real one (std::chrono::steady_clock); a process-wide
//                  stateless instance, valid for the life of the process
//   ManualClock    stands still until Advance(), for deterministic tests
//
// Thread safety: Now() and ManualClock::Advance may be called from any
// thread at once (a fake server may advance the clock from each request).
#ifndef CVMFS_CLOCK_H_
#define CVMFS_CLOCK_H_

#include <atomic>
#include <chrono>

namespace cvmfs {

class Clock {
 public:
  using Duration = std::chrono::steady_clock::duration;
  using TimePoint = std::chrono::steady_clock::time_point;

  virtual ~Clock() = default;
  virtual TimePoint Now() const = 0;
};

// The real monotonic clock. Never null; not owned by the caller.
const Clock* SteadyClock();

class ManualClock : public Clock {
 public:
  // Starts at an arbitrary fixed point, not at the epoch, so that code
  // which treats a zero time point as "unset" is caught by tests.
  ManualClock() : now_(TimePoint(std::chrono::hours(1000))) {}

  TimePoint Now() const override { return now_.load(); }
  void Advance(Duration d) {
    TimePoint t = now_.load();
    while (!now_.compare_exchange_weak(t, t + d)) {
    }
  }

 private:
  std::atomic<TimePoint> now_;
};

}  // namespace cvmfs

#endif  // CVMFS_CLOCK_H_
