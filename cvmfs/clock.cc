#include "cvmfs/clock.h"

namespace cvmfs {
namespace {

class SteadyClockImpl : public Clock {
 public:
  TimePoint Now() const override { return std::chrono::steady_clock::now(); }
};

}  // namespace

const Clock* SteadyClock() {
  // Stateless and immutable, so sharing one instance is no mutable global.
  static const SteadyClockImpl clock;
  return &clock;
}

}  // namespace cvmfs
