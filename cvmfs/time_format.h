// Time stamps as text: one strftime-based formatter for every message, log
// line and listing that shows a time, and the formats they use. Formats that
// must not depend on the locale at all (HTTP dates, access logs, the
// whitelist's YYYYMMDDhhmmss) keep their own writers beside their format.
//
// Thread safety: free functions; FormatTime reads the process's time zone
// (localtime_r) for TimeZone::kLocal.
#ifndef CVMFS_TIME_FORMAT_H_
#define CVMFS_TIME_FORMAT_H_

#include <cstdint>
#include <string>

namespace cvmfs {

enum class TimeZone { kUtc, kLocal };

// "2026-11-22 17:46:59": log stamps, listings.
inline constexpr char kDateTimeFormat[] = "%Y-%m-%d %H:%M:%S";
// "2026-11-22T17:46:59Z": RFC 3339 in UTC (use with TimeZone::kUtc).
inline constexpr char kRfc3339UtcFormat[] = "%Y-%m-%dT%H:%M:%SZ";
// "Sun Nov 22 17:46:59 UTC 2026": what date(1) prints in UTC.
inline constexpr char kDateCommandUtcFormat[] = "%a %b %e %H:%M:%S UTC %Y";

// `t` (seconds since the epoch) broken down in `zone` and written with
// strftime(3) `format`; "" if `t` cannot be broken down or the text would
// exceed 255 bytes.
std::string FormatTime(int64_t t, const char* format, TimeZone zone);

}  // namespace cvmfs

#endif  // CVMFS_TIME_FORMAT_H_
