// Typed reading of raw configuration options. Every malformed value becomes
// an InvalidArgument that names the parameter, its value, the file it came
// from and what to write instead, e.g.
//   CVMFS_QUOTA_LIMIT='abc' (from /etc/cvmfs/default.local): expected
//   megabytes (a number, or -1 for unmanaged)
//
// A parameter that is unset or set to the empty string (`CVMFS_X=`) takes
// its default: an empty assignment is how administrators "unset" a value
// from an earlier file.
//
// Thread safety: thread-compatible; borrows the OptionsManager, which must
// outlive the reader.
#ifndef CVMFS_CONFIG_OPTION_READER_H_
#define CVMFS_CONFIG_OPTION_READER_H_

#include <cstdint>
#include <optional>
#include <string>

#include "cvmfs/config/options_manager.h"
#include "cvmfs/status.h"
#include "cvmfs/text.h"  // ParseBoolean

namespace cvmfs {

class OptionReader {
 public:
  explicit OptionReader(const OptionsManager& options) : options_(options) {}

  // The value, or nullopt if unset or empty.
  std::optional<std::string> Optional(const std::string& name) const;
  std::string String(const std::string& name, const std::string& def) const;
  Result<bool> Bool(const std::string& name, bool def) const;
  // An integer in [min, max]; `expected` says what to write, e.g.
  // "seconds (a number from 1 to 3600)".
  Result<int64_t> Integer(const std::string& name, int64_t def, int64_t min,
                          int64_t max, const std::string& expected) const;

  // The error for `name`'s current value: "NAME='value' (from source):
  // expected <expected>".
  Status Invalid(const std::string& name, const std::string& expected) const;

 private:
  const OptionsManager& options_;
};

}  // namespace cvmfs

#endif  // CVMFS_CONFIG_OPTION_READER_H_
