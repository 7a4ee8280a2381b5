// Variant symlinks (doc/format.md, "Symlinks"): catalog symlink targets may
// hold `$(VAR)` and `$(VAR:-default)`, expanded when read from the client's
// environment. An unset variable without default expands to "", an
// unterminated `$(` stays literal.
#ifndef CVMFS_SYMLINK_EXPANSION_H_
#define CVMFS_SYMLINK_EXPANSION_H_

#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace cvmfs {

using VariableLookup =
    std::function<std::optional<std::string>(const std::string& name)>;

std::string ExpandSymlink(std::string_view raw, const VariableLookup& lookup);

}  // namespace cvmfs

#endif  // CVMFS_SYMLINK_EXPANSION_H_
