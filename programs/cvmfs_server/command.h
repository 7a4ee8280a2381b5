// The one convention of cvmfs_server's subcommands.
//
// A file per subcommand, or per family of subcommands, provides
//   std::vector<Command> Add<Name>Command(s)(CLI::App& app,
//                                           const cvmfs::SystemPaths& paths);
// (listed in commands.h) which adds its CLI11 subcommands to `app` and
// returns, for each, a Command: the subcommand and the function that runs
// it. main() parses the command line and runs the one Command whose
// subcommand was given (RunGivenCommand); what it returns is the exit
// status. Nothing throws: a run function prints what went wrong with
// FailMessage() and returns its code. Only CLI11's own parse errors (usage
// errors, --help) end in CLI::App::exit, in main().
//
// Run functions read the options CLI11 filled in while parsing: they hold
// them in a shared_ptr they capture. `paths` and `app` must outlive the
// Commands (main() owns all three).
#ifndef PROGRAMS_CVMFS_SERVER_COMMAND_H_
#define PROGRAMS_CVMFS_SERVER_COMMAND_H_

#include <CLI/CLI.hpp>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"
#include "publisher/repository.h"

namespace cvmfs_server {

struct Command {
  const CLI::App* cli;       // the subcommand; owned by the top-level app
  std::function<int()> run;  // does the work; returns the exit status
};

// What every family registers its subcommands with.
using AddCommandsFn = std::vector<Command> (*)(CLI::App& app,
                                               const cvmfs::SystemPaths& paths);

// Ok when `fqrn` is a repository name (cvmfs::IsValidRepositoryName: FQDN
// like, no '/', no "..", nothing a path could escape with); InvalidArgument
// naming it otherwise.
cvmfs::Status ValidateRepositoryName(const std::string& fqrn);

// ValidateRepositoryName of every value given to the positional options
// "fqrn" and "name" of `cli`.
cvmfs::Status ValidateGivenRepositoryNames(const CLI::App& cli);

// Adds to `cmd` an option (a flag, or one taking a value when `takes_value`)
// that CVMFS 2.12 defines but this cvmfs_server does not implement: it is
// listed by --help under "Not supported", and giving it fails the command
// before it runs (RunGivenCommand) with NotSupported "<command> <option> is
// not supported: <reason>", never silently ignored.
void AddRefusedOption(CLI::App* cmd, const std::string& names,
                      const std::string& reason, bool takes_value = false);

// NotSupported for the first option added with AddRefusedOption that the
// command line gave to `cli`; Ok when none.
cvmfs::Status RefuseGivenUnsupportedOptions(const CLI::App& cli);

// Runs the Command whose subcommand the command line gave and returns its
// exit status; 0 when none was given. A repository name that is not valid
// (ValidateGivenRepositoryNames) or a refused option
// (RefuseGivenUnsupportedOptions) fails it before it runs.
int RunGivenCommand(const std::vector<Command>& commands);

// Prints "cvmfs_server: <status>" to stderr; returns the exit code for it
// (2 for invalid arguments, 1 otherwise).
int FailMessage(const cvmfs::Status& st);

// The exit status of a command that ends with `st`: 0, or FailMessage(st).
int ExitCode(const cvmfs::Status& st);

// The Command of `cli` that runs run(paths, *args), where `args` holds the
// options CLI11 fills in; a Status result becomes ExitCode(status).
template <typename Args>
Command MakeCommand(const CLI::App* cli, const cvmfs::SystemPaths& paths,
                    std::shared_ptr<Args> args,
                    int (*run)(const cvmfs::SystemPaths&, const Args&)) {
  return {cli, [p = &paths, args, run] { return run(*p, *args); }};
}
template <typename Args>
Command MakeCommand(const CLI::App* cli, const cvmfs::SystemPaths& paths,
                    std::shared_ptr<Args> args,
                    cvmfs::Status (*run)(const cvmfs::SystemPaths&,
                                         const Args&)) {
  return {cli, [p = &paths, args, run] { return ExitCode(run(*p, *args)); }};
}

// After a failed publish: says on stderr which revision is still served
// ("cvmfs_server: nothing was published; FQRN stays at revision N"); says
// nothing when even the current manifest cannot be read.
void PrintNothingPublished(publisher::Repository& repo);

// FailMessage(st), then PrintNothingPublished(repo).
int FailPublish(publisher::Repository& repo, const cvmfs::Status& st);

// The repository named on the command line, or the only one there is.
cvmfs::Result<std::string> ResolveFqrn(const cvmfs::SystemPaths& paths,
                                       const std::string& given);

// Repository::Open of ResolveFqrn(paths, given).
cvmfs::Result<std::unique_ptr<publisher::Repository>> OpenRepository(
    const cvmfs::SystemPaths& paths, const std::string& given);

// Asks `question` followed by " (y/N)? " on stdout and reads one line of
// stdin, as CVMFS's `read -p` does (a pipe answers too): true for "y" or "Y".
// End of input (no terminal, nothing piped) is no.
bool Confirm(const std::string& question);

// InvalidArgument "not confirmed (answer y, or give -f): <consequence>";
// what a command that was not confirmed returns.
cvmfs::Status NotConfirmed(const std::string& consequence);

// Local time as CVMFS prints it ("Fri Nov 27 13:13:00 2026").
std::string FormatLocalTime(int64_t unix_seconds);

}  // namespace cvmfs_server

#endif  // PROGRAMS_CVMFS_SERVER_COMMAND_H_
