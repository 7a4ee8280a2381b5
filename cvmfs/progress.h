// Progress of a long command as one updating line on a terminal
// (cvmfs_server publish, ingest, snapshot, gc, check; doc/publishing.md).
//
//   ProgressCounters  what the work updates: relaxed atomics, a few
//                     nanoseconds per call, from any thread
//   ProgressMeter     renders the counters into a line and redraws it at
//                     most once per `interval` ("\r" + line + erase to the
//                     end of the line); Finish() writes the final line
//   ProgressTicker    RAII: ticks a meter from its own thread until it is
//                     destroyed, then finishes it
//
// A line: "<label>: <done>[/<total> (<pct>%)] <unit>[, <bytes>], <rate>
// [, <m:ss> left]"; the time left only where the total is known (work
// still being found shows "<done>/<found so far> <unit> (found so far)"). A
// phase
// (StartPhase) names what `done` counts ("files", "objects scanned") and
// restarts the count and the rate.
//
// Thread safety: ProgressCounters from any thread. A ProgressMeter from one
// thread at a time (its ticker's, or the caller's when it has none).
#ifndef CVMFS_PROGRESS_H_
#define CVMFS_PROGRESS_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"
#include "cvmfs/status.h"

namespace cvmfs {

class ProgressCounters {
 public:
  // `unit` must be a string literal (or outlive the counters).
  explicit ProgressCounters(const char* unit = "entries") : unit_(unit) {}

  void Add(uint64_t items, uint64_t bytes = 0) {
    done_.fetch_add(items, std::memory_order_relaxed);
    if (bytes != 0) bytes_.fetch_add(bytes, std::memory_order_relaxed);
  }
  // The total of the phase, when it becomes known (0: unknown).
  void SetTotal(uint64_t items) {
    total_.store(items, std::memory_order_relaxed);
  }
  // Work found while the work goes on (a walk that copies as it goes): the
  // total so far, shown without a percentage or a time left.
  void AddFound(uint64_t items) {
    growing_.store(true, std::memory_order_relaxed);
    total_.fetch_add(items, std::memory_order_relaxed);
  }
  // Starts counting something else: done, total and bytes restart at 0.
  void StartPhase(const char* unit, uint64_t total = 0);

  struct Snapshot {
    const char* unit;
    uint64_t phase;  // changes with every StartPhase
    uint64_t done, total, bytes;
    bool growing;  // the total is what was found so far (AddFound)
  };
  Snapshot Read() const;

 private:
  std::atomic<const char*> unit_;
  std::atomic<uint64_t> phase_{0};
  std::atomic<uint64_t> done_{0};
  std::atomic<uint64_t> total_{0};
  std::atomic<uint64_t> bytes_{0};
  std::atomic<bool> growing_{false};
};

class ProgressMeter {
 public:
  using WriteFn = std::function<void(const std::string&)>;
  // Reads `counters` and `clock` (borrowed, outlive the meter); writes
  // through `write` (stderr in production).
  ProgressMeter(std::string label, const ProgressCounters* counters,
                const Clock* clock, WriteFn write,
                Clock::Duration interval = std::chrono::milliseconds(250));

  // Redraws the line if `interval` passed since the last draw (or since
  // the start, so a command that ends quickly draws only its final line).
  void Tick();
  // Writes the final line and a newline; later calls do nothing.
  void Finish();

  // The line as it reads now, without control characters.
  std::string Render(bool final) const;

 private:
  void Draw(const std::string& line, bool final);

  const std::string label_;
  const ProgressCounters* const counters_;
  const Clock* const clock_;
  const WriteFn write_;
  const Clock::Duration interval_;
  Clock::TimePoint last_draw_;
  // The phase last seen and when it started (its rate counts from there):
  // a phase is taken to start at the last look before it was seen.
  uint64_t phase_ = 0;
  Clock::TimePoint phase_start_;
  Clock::TimePoint last_seen_;  // the last Tick (or the construction)
  bool finished_ = false;
};

class ProgressTicker {
 public:
  // Ticks `meter` (borrowed; outlives the ticker) every `period` of real time.
  explicit ProgressTicker(
      ProgressMeter* meter,
      std::chrono::milliseconds period = std::chrono::milliseconds(250));
  ~ProgressTicker();  // stops the thread, then meter->Finish()
  ProgressTicker(const ProgressTicker&) = delete;
  ProgressTicker& operator=(const ProgressTicker&) = delete;

 private:
  void Loop();

  ProgressMeter* const meter_;
  const std::chrono::milliseconds period_;
  Mutex mu_;  // guards stop_; a leaf lock
  std::condition_variable cv_;
  bool stop_ GUARDED_BY(mu_) = false;
  std::thread thread_;  // last: started after the state above
};

// Whether to show progress, from the setting (CVMFS_SERVER_PROGRESS: "auto"
// or empty = only on a terminal, "on"/"yes"/"1", "off"/"no"/"0") and whether
// stderr is a terminal. InvalidArgument for any other setting.
Result<bool> ProgressWanted(const std::string& setting, bool stderr_is_tty);

// "512 B", "1.5 KiB", "12.0 MiB", "3.2 GiB".
std::string FormatBytes(uint64_t bytes);
// "0:07", "12:34", "1:02:03".
std::string FormatDuration(Clock::Duration d);

}  // namespace cvmfs

#endif  // CVMFS_PROGRESS_H_
