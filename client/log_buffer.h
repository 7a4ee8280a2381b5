// LogBuffer: the last kCapacity messages a mount sent to syslog, kept in
// memory for the user.logbuffer magic attribute (CVMFS keeps 10). Text()
// lists them oldest first, one per line, as CVMFS does:
//
//   [27 Nov 2026 22:41:23 UTC] <message, cut at 4096 bytes + " <snip>">
//
// with the time in the local time zone.
//
// Thread safety: all methods may be called from any thread.
#ifndef CLIENT_LOG_BUFFER_H_
#define CLIENT_LOG_BUFFER_H_

#include <ctime>
#include <deque>
#include <string>

#include "cvmfs/mutex.h"

namespace cvmfs::client {

class LogBuffer {
 public:
  static constexpr size_t kCapacity = 10;
  static constexpr size_t kMaxLine = 4096;

  void Append(time_t when, const std::string& message) EXCLUDES(mu_);
  std::string Text() const EXCLUDES(mu_);

 private:
  struct Line {
    time_t when;
    std::string message;
  };
  // Leaf lock, held for a deque operation only.
  mutable cvmfs::Mutex mu_;
  std::deque<Line> lines_ GUARDED_BY(mu_);  // oldest first
};

}  // namespace cvmfs::client

#endif  // CLIENT_LOG_BUFFER_H_
