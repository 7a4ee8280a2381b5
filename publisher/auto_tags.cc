#include "publisher/auto_tags.h"

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <regex>

#include "cvmfs/time_format.h"

namespace publisher {

using cvmfs::Status;

std::string AutoTagName(int64_t now,
                        const std::function<bool(const std::string&)>& taken) {
  const std::string time =
      cvmfs::FormatTime(now, cvmfs::kRfc3339UtcFormat, cvmfs::TimeZone::kUtc);
  std::string name = "generic-" + time;
  for (int n = 1; taken(name); ++n)
    name = "generic_" + std::to_string(n) + "-" + time;
  return name;
}

bool IsAutoTagName(const std::string& name) {
  static const std::regex kPattern(
      "^generic(_[0-9]+)?-[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}"
      "(\\.[0-9]{1,3})?Z");
  return std::regex_search(name, kPattern);
}

namespace {

// `now` moved back by `months` calendar months (UTC), as date does.
int64_t MonthsBefore(int64_t now, long months) {
  time_t t = static_cast<time_t>(now);
  struct tm tm;
  gmtime_r(&t, &tm);
  long total = tm.tm_year * 12L + tm.tm_mon - months;
  tm.tm_year = static_cast<int>(total / 12);
  tm.tm_mon = static_cast<int>(total % 12);
  return static_cast<int64_t>(timegm(&tm));
}

}  // namespace

cvmfs::Result<int64_t> AutoTagThreshold(const std::string& timespan,
                                        int64_t now) {
  if (timespan.empty()) return int64_t{0};
  const Status bad = Status::InvalidArgument(
      "CVMFS_AUTO_TAG_TIMESPAN '" + timespan +
      "' is not understood (e.g. '4 weeks ago', '30 days ago', '2024-01-31' "
      "or '@1700000000')");
  std::smatch m;
  static const std::regex kAgo(
      "^\\s*([0-9]{1,9})?\\s*(second|sec|minute|min|hour|day|week|fortnight|"
      "month|"
      "year)s?\\s+ago\\s*$",
      std::regex::icase);
  static const std::regex kDate("^\\s*([0-9]{4})-([0-9]{2})-([0-9]{2})\\s*$");
  static const std::regex kEpoch("^\\s*@([0-9]{1,12})\\s*$");
  if (std::regex_match(timespan, m, kAgo)) {
    const long n =
        m[1].matched ? std::strtol(m[1].str().c_str(), nullptr, 10) : 1;
    std::string unit = m[2].str();
    for (char& c : unit) c = static_cast<char>(std::tolower(c));
    if (unit == "month") return MonthsBefore(now, n);
    if (unit == "year") return MonthsBefore(now, n * 12);
    int64_t seconds = 1;
    if (unit == "minute" || unit == "min") seconds = 60;
    if (unit == "hour") seconds = 3600;
    if (unit == "day") seconds = 86400;
    if (unit == "week") seconds = 7 * 86400;
    if (unit == "fortnight") seconds = 14 * 86400;
    return now - n * seconds;
  }
  if (std::regex_match(timespan, m, kDate)) {
    struct tm tm = {};
    tm.tm_year =
        static_cast<int>(std::strtol(m[1].str().c_str(), nullptr, 10)) - 1900;
    tm.tm_mon =
        static_cast<int>(std::strtol(m[2].str().c_str(), nullptr, 10)) - 1;
    tm.tm_mday = static_cast<int>(std::strtol(m[3].str().c_str(), nullptr, 10));
    if (tm.tm_mon < 0 || tm.tm_mon > 11 || tm.tm_mday < 1 || tm.tm_mday > 31)
      return bad;
    return static_cast<int64_t>(timegm(&tm));
  }
  if (std::regex_match(timespan, m, kEpoch))
    return static_cast<int64_t>(std::strtoll(m[1].str().c_str(), nullptr, 10));
  return bad;
}

std::vector<std::string> OutdatedAutoTags(const std::vector<cvmfs::Tag>& tags,
                                          int64_t threshold) {
  std::vector<std::string> names;
  if (threshold == 0) return names;
  for (const cvmfs::Tag& t : tags)
    if (IsAutoTagName(t.name) && t.timestamp < threshold)
      names.push_back(t.name);
  return names;
}

}  // namespace publisher
