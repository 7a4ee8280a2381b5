#include "cvmfs/progress.h"

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <utility>

namespace cvmfs {

void ProgressCounters::StartPhase(const char* unit, uint64_t total) {
  done_.store(0, std::memory_order_relaxed);
  bytes_.store(0, std::memory_order_relaxed);
  total_.store(total, std::memory_order_relaxed);
  growing_.store(false, std::memory_order_relaxed);
  unit_.store(unit, std::memory_order_relaxed);
  phase_.fetch_add(1, std::memory_order_release);
}

ProgressCounters::Snapshot ProgressCounters::Read() const {
  Snapshot s;
  s.phase = phase_.load(std::memory_order_acquire);
  s.unit = unit_.load(std::memory_order_relaxed);
  s.done = done_.load(std::memory_order_relaxed);
  s.total = total_.load(std::memory_order_relaxed);
  s.bytes = bytes_.load(std::memory_order_relaxed);
  s.growing = growing_.load(std::memory_order_relaxed);
  return s;
}

std::string FormatBytes(uint64_t bytes) {
  if (bytes < 1024) return std::to_string(bytes) + " B";
  static constexpr const char* kUnits[] = {"KiB", "MiB", "GiB", "TiB"};
  double v = static_cast<double>(bytes) / 1024;
  size_t u = 0;
  while (v >= 1024 && u + 1 < std::size(kUnits)) {
    v /= 1024;
    ++u;
  }
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.1f %s", v, kUnits[u]);
  return buf;
}

std::string FormatDuration(Clock::Duration d) {
  const int64_t s = std::max<int64_t>(
      0, std::chrono::duration_cast<std::chrono::seconds>(d).count());
  char buf[32];
  if (s >= 3600)
    std::snprintf(buf, sizeof(buf), "%lld:%02lld:%02lld",
                  static_cast<long long>(s / 3600),
                  static_cast<long long>(s / 60 % 60),
                  static_cast<long long>(s % 60));
  else
    std::snprintf(buf, sizeof(buf), "%lld:%02lld",
                  static_cast<long long>(s / 60),
                  static_cast<long long>(s % 60));
  return buf;
}

Result<bool> ProgressWanted(const std::string& setting, bool stderr_is_tty) {
  if (setting.empty() || setting == "auto") return stderr_is_tty;
  if (setting == "on" || setting == "yes" || setting == "1") return true;
  if (setting == "off" || setting == "no" || setting == "0") return false;
  return Status::InvalidArgument("CVMFS_SERVER_PROGRESS='" + setting +
                                 "' is not one of auto, on, off");
}

ProgressMeter::ProgressMeter(std::string label,
                             const ProgressCounters* counters,
                             const Clock* clock, WriteFn write,
                             Clock::Duration interval)
    : label_(std::move(label)),
      counters_(counters),
      clock_(clock),
      write_(std::move(write)),
      interval_(interval),
      last_draw_(clock->Now()),
      phase_(counters->Read().phase),
      phase_start_(last_draw_),
      last_seen_(last_draw_) {}

std::string ProgressMeter::Render(bool final) const {
  const ProgressCounters::Snapshot s = counters_->Read();
  const Clock::TimePoint now = clock_->Now();
  // A phase not seen yet began after the last look at the counters.
  const Clock::Duration elapsed =
      now - (s.phase == phase_ ? phase_start_ : last_seen_);
  const double seconds = std::chrono::duration<double>(elapsed).count();

  std::string line = label_ + ": " + std::to_string(s.done);
  if (s.total > 0 && s.growing && final) {
    line += std::string(" ") + s.unit;  // all that was found is done
  } else if (s.total > 0 && s.growing) {
    line += "/" + std::to_string(s.total) + " " + s.unit + " (found so far)";
  } else if (s.total > 0) {
    const uint64_t pct = std::min<uint64_t>(100, s.done * 100 / s.total);
    line += "/" + std::to_string(s.total) + " " + s.unit + " (" +
            std::to_string(pct) + "%)";
  } else {
    line += std::string(" ") + s.unit;
  }
  if (s.bytes > 0) line += ", " + FormatBytes(s.bytes);
  if (seconds >= 0.001) {
    const double rate = static_cast<double>(s.done) / seconds;
    line += ", " + std::to_string(static_cast<uint64_t>(rate)) + " " + s.unit +
            "/s";
    if (s.bytes > 0)
      line += ", " +
              FormatBytes(static_cast<uint64_t>(static_cast<double>(s.bytes) /
                                                seconds)) +
              "/s";
    if (!final && !s.growing && s.total > s.done && rate > 0) {
      const double left = static_cast<double>(s.total - s.done) / rate;
      line += ", " +
              FormatDuration(std::chrono::duration_cast<Clock::Duration>(
                  std::chrono::duration<double>(left))) +
              " left";
    }
  }
  if (final) line += ", in " + FormatDuration(elapsed);
  return line;
}

void ProgressMeter::Tick() {
  if (finished_) return;
  const Clock::TimePoint now = clock_->Now();
  const uint64_t phase = counters_->Read().phase;
  if (phase != phase_) {
    phase_ = phase;
    phase_start_ = last_seen_;
  }
  last_seen_ = now;
  if (now - last_draw_ < interval_) return;
  last_draw_ = now;
  Draw(Render(false), false);
}

void ProgressMeter::Finish() {
  if (finished_) return;
  finished_ = true;
  Draw(Render(true), true);
}

void ProgressMeter::Draw(const std::string& line, bool final) {
  // Carriage return, the line, then erase what a longer line left behind.
  write_("\r" + line + "\033[K" + (final ? "\n" : ""));
}

ProgressTicker::ProgressTicker(ProgressMeter* meter,
                               std::chrono::milliseconds period)
    : meter_(meter), period_(period), thread_([this] { Loop(); }) {}

ProgressTicker::~ProgressTicker() {
  {
    MutexLock l(&mu_);
    stop_ = true;
  }
  cv_.notify_all();
  thread_.join();
  meter_->Finish();
}

void ProgressTicker::Loop() {
  MutexLock l(&mu_);
  while (!stop_) {
    l.WaitFor(&cv_, period_);
    if (stop_) break;
    l.Unlock();
    meter_->Tick();
    l.Lock();
  }
}

}  // namespace cvmfs
