#include "cvmfs/time_format.h"

#include <ctime>

namespace cvmfs {

std::string FormatTime(int64_t t, const char* format, TimeZone zone) {
  const time_t tt = static_cast<time_t>(t);
  struct tm tm {};
  const bool ok = zone == TimeZone::kUtc ? gmtime_r(&tt, &tm) != nullptr
                                         : localtime_r(&tt, &tm) != nullptr;
  if (!ok) return "";
  char buf[256];
  size_t n = std::strftime(buf, sizeof(buf), format, &tm);
  return std::string(buf, n);
}

}  // namespace cvmfs
