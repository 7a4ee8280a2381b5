#include "server/access_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>

namespace server {
namespace {

// Local time as [10/Oct/2024:13:55:36 +0200], independent of the locale.
std::string FormatLogTime(time_t t) {
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr",
                                            "May", "Jun", "Jul", "Aug",
                                            "Sep", "Oct", "Nov", "Dec"};
  struct tm tm;
  localtime_r(&t, &tm);
  long offset_min = tm.tm_gmtoff / 60;
  char sign = offset_min < 0 ? '-' : '+';
  if (offset_min < 0) offset_min = -offset_min;
  char buf[64];
  std::snprintf(buf, sizeof(buf), "[%02d/%s/%04d:%02d:%02d:%02d %c%02ld%02ld]",
                tm.tm_mday, kMonths[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour,
                tm.tm_min, tm.tm_sec, sign, offset_min / 60, offset_min % 60);
  return buf;
}

std::string Escape(const std::string& s) {
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    if (c < 0x20 || c >= 0x7f || c == '"' || c == '\\') {
      char hex[5];
      std::snprintf(hex, sizeof(hex), "\\x%02x", c);
      out += hex;
    } else {
      out += static_cast<char>(c);
    }
  }
  return out;
}

}  // namespace

std::string FormatCommonLogLine(const AccessRecord& r) {
  std::string bytes = r.body_bytes == 0 ? "-" : std::to_string(r.body_bytes);
  return r.client + " - - " + FormatLogTime(r.time) + " \"" + Escape(r.method) +
         " " + Escape(r.target) + " " + Escape(r.version) + "\" " +
         std::to_string(r.status) + " " + bytes + "\n";
}

cvmfs::Result<std::unique_ptr<AccessLog>> AccessLog::Open(
    const std::string& path) {
  cvmfs::UniqueFd fd(
      ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid())
    return cvmfs::Status::FromErrno(errno, "open access log " + path);
  return std::unique_ptr<AccessLog>(new AccessLog(std::move(fd)));
}

void AccessLog::Write(const AccessRecord& record) {
  std::string line = FormatCommonLogLine(record);
  // One write keeps lines whole; a short write (disk full) loses the rest
  // of this line only.
  (void)!::write(fd_.get(), line.data(), line.size());
}

}  // namespace server
