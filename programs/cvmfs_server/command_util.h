// Shared pieces of the cvmfs_server subcommands.
//
// Subcommands that live in their own files (e.g. gc_command.cc) provide
//   void Add<Name>Command(CLI::App& app, const cvmfs::SystemPaths& paths);
// which adds the subcommand with a callback. The callback prints what went
// wrong with FailMessage() and always ends with ExitWith(code), which
// CLI11_PARSE in main() turns into the exit status.
#ifndef PROGRAMS_CVMFS_SERVER_COMMAND_UTIL_H_
#define PROGRAMS_CVMFS_SERVER_COMMAND_UTIL_H_

#include <CLI/CLI.hpp>
#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace publisher {

// Prints "cvmfs_server: <status>" to stderr; returns the exit code for it
// (2 for invalid arguments, 1 otherwise).
int FailMessage(const cvmfs::Status& st);

// Ends the current subcommand (and the program) with exit status `code`.
// Callbacks must end with it: main() would otherwise go on as if one of its
// own subcommands had been given.
[[noreturn]] inline void ExitWith(int code) {
  if (code == 0) throw CLI::Success();
  throw CLI::RuntimeError(code);
}

// The repository named on the command line, or the only one there is.
cvmfs::Result<std::string> ResolveFqrn(const cvmfs::SystemPaths& paths,
                                       const std::string& given);

}  // namespace publisher

#endif  // PROGRAMS_CVMFS_SERVER_COMMAND_UTIL_H_
