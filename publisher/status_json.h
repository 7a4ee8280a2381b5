// .cvmfs_status.json: the small status file CVMFS 2.12 keeps at the top of
// a repository's storage (Stratum 0 and Stratum 1 alike) and serves with
// it. A flat JSON object of strings, written by jq with two-space indent:
//
//   {
//     "last_snapshot": "Fri Nov 27 11:59:17 UTC 2026",
//     "last_gc": "Fri Nov 27 11:57:42 UTC 2026",
//     "last_check": "Fri Nov 27 12:00:03 UTC 2026",
//     "check_status": "succeeded"
//   }
//
// Times are `date --utc` (cvmfs::kDateCommandUtcFormat). Who writes what,
// as in CVMFS: snapshot last_snapshot, gc (not a dry run) last_gc, check -a
// last_check and check_status (succeeded/failed); a single check updates
// them only after a success and only if last_check is already there.
// Keys keep their order; a key set again keeps its place (jq's
// `.key="value"`).
//
// Thread safety: free functions; a writer replaces the file atomically
// (temporary + rename), the callers hold the repository's lock.
#ifndef PUBLISHER_STATUS_JSON_H_
#define PUBLISHER_STATUS_JSON_H_

#include <ctime>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cvmfs/status.h"

namespace publisher {

inline constexpr char kStatusJsonName[] = ".cvmfs_status.json";

using StatusFields = std::vector<std::pair<std::string, std::string>>;

// Parses a flat object of string values; Corruption otherwise.
cvmfs::Result<StatusFields> ParseStatusJson(std::string_view text);
// The text jq writes for `fields` (ends with a newline).
std::string SerializeStatusJson(const StatusFields& fields);

// The value of `key` in <storage_dir>/.cvmfs_status.json; nullopt when the
// file or the key is missing.
cvmfs::Result<std::optional<std::string>> ReadStatusField(
    const std::string& storage_dir, const std::string& key);
// Sets `key` to `value` in <storage_dir>/.cvmfs_status.json (created when
// missing), keeping the other fields.
cvmfs::Status UpdateStatusField(const std::string& storage_dir,
                                const std::string& key,
                                const std::string& value);

// Corruption (with the byte offset) unless `text` is one JSON value (RFC
// 8259), the check CVMFS makes with `jq .` before installing a meta-info
// file (update-info).
cvmfs::Status ValidateJson(std::string_view text);

// `t` as `date --utc` prints it: "Fri Nov 27 11:57:42 UTC 2026".
std::string StatusTime(time_t t);
// The inverse of StatusTime (what CVMFS's `date --utc` wrote, too);
// InvalidArgument for anything else.
cvmfs::Result<time_t> ParseStatusTime(std::string_view text);

}  // namespace publisher

#endif  // PUBLISHER_STATUS_JSON_H_
