// Evaluates one CVMFS configuration file the way CVMFS does: the file is
// shell code, sourced by /bin/sh, and the parameters it assigns are read back
// from the shell afterwards. So
// `CVMFS_SERVER_URL="$CVMFS_SERVER_URL;http://b"`, quoting, `export`,
// conditionals and `$(command)` all mean what they mean to the shell
// (doc/client.md, "Configuration").
//
// Which names to read back is decided from the text, line by line, as CVMFS
// does: `NAME=...`, `export NAME=...` or `readonly NAME=...` after optional
// leading blanks; comment lines are ignored.
//
// Thread safety: free functions without shared state; SourceShellFile forks
// and may be called from several threads at once.
#ifndef CVMFS_CONFIG_SHELL_SOURCE_H_
#define CVMFS_CONFIG_SHELL_SOURCE_H_

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

// The names of the parameters `text` assigns, each once, in order of first
// assignment. Only valid shell identifiers are returned.
std::vector<std::string> AssignedParameters(std::string_view text);

// Runs `/bin/sh` with its working directory set to the directory of `path`
// and exactly `environment` as its environment (plus a default PATH unless
// `environment` has one), sources `path`, and returns the values of those
// `names` that are set afterwards. Names the file assigns only in a branch
// that was not taken, and that were not in `environment`, are absent.
//
// Errors: NotFound if `path` does not exist; InvalidArgument naming the file
// and quoting the shell's message if the shell cannot source it (syntax
// error, `exit`, ...); IoError if the shell cannot be run.
Result<std::map<std::string, std::string>> SourceShellFile(
    const std::string& path, const std::vector<std::string>& names,
    const std::map<std::string, std::string>& environment);

}  // namespace cvmfs

#endif  // CVMFS_CONFIG_SHELL_SOURCE_H_
