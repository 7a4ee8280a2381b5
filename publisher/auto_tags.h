// Automatic tags: the tag publish adds to each revision when CVMFS_AUTO_TAG
// is on and no name is given (-a), named and pruned as CVMFS 2.12's
// cvmfs_server publish does:
//   - the name is generic-<UTC time, %Y-%m-%dT%H:%M:%SZ>; when that name is
//     taken (two publishes in one second) generic_1-<time>, generic_2-<time>,
//     ... the first free one (so every revision keeps its own auto tag)
//   - with CVMFS_AUTO_TAG_TIMESPAN set (a `date --date` expression such as
//     "4 weeks ago"), auto tags older than that are removed on publish
// Pure functions over tag lists; no I/O, thread-compatible.
#ifndef PUBLISHER_AUTO_TAGS_H_
#define PUBLISHER_AUTO_TAGS_H_

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/status.h"

namespace publisher {

// The first of generic-<time>, generic_1-<time>, generic_2-<time>, ... for
// which `taken` is false; <time> is `now` in UTC.
std::string AutoTagName(int64_t now,
                        const std::function<bool(const std::string&)>& taken);

// True for names AutoTagName makes (CVMFS's pattern:
// ^generic(_N)?-YYYY-MM-DDTHH:MM:SS(.fff)?Z).
bool IsAutoTagName(const std::string& name);

// The Unix time CVMFS_AUTO_TAG_TIMESPAN names, relative to `now`; 0 (keep
// every auto tag) for an empty one. Understood, as `date --date` reads
// them: "N UNIT[s] ago" (UNIT second, minute, hour, day, week, month,
// year; N may be omitted), "YYYY-MM-DD" (UTC midnight), "@UNIXTIME".
// InvalidArgument naming the value for anything else.
cvmfs::Result<int64_t> AutoTagThreshold(const std::string& timespan,
                                        int64_t now);

// The names of the auto tags in `tags` older (timestamp) than `threshold`;
// none when `threshold` is 0.
std::vector<std::string> OutdatedAutoTags(const std::vector<cvmfs::Tag>& tags,
                                          int64_t threshold);

}  // namespace publisher

#endif  // PUBLISHER_AUTO_TAGS_H_
