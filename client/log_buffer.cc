#include "client/log_buffer.h"

namespace cvmfs::client {
namespace {

// "27 Nov 2026 22:41:23 CET": CVMFS's local time stamp.
std::string LocalStamp(time_t when) {
  tm parts = {};
  ::localtime_r(&when, &parts);
  char rest[64];
  std::strftime(rest, sizeof(rest), "%b %Y %H:%M:%S %Z", &parts);
  return std::to_string(parts.tm_mday) + " " + rest;
}

}  // namespace

void LogBuffer::Append(time_t when, const std::string& message) {
  cvmfs::MutexLock lock(&mu_);
  lines_.push_back({when, message});
  if (lines_.size() > kCapacity) lines_.pop_front();
}

std::string LogBuffer::Text() const {
  std::deque<Line> lines;
  {
    cvmfs::MutexLock lock(&mu_);
    lines = lines_;
  }
  std::string text;
  for (const Line& l : lines) {
    std::string message = l.message;
    if (message.size() > kMaxLine)
      message.resize(kMaxLine), message += " <snip>";
    text += "[" + LocalStamp(l.when) + "] " + message + "\n";
  }
  return text;
}

}  // namespace cvmfs::client
