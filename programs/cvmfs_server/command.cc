#include "programs/cvmfs_server/command.h"

#include <cstdio>
#include <ctime>
#include <iostream>

#include "cvmfs/config/options_manager.h"
#include "cvmfs/file_util.h"
#include "cvmfs/time_format.h"

namespace cvmfs_server {

using cvmfs::Status;

Status ValidateRepositoryName(const std::string& fqrn) {
  if (cvmfs::IsValidRepositoryName(fqrn) &&
      fqrn.find("..") == std::string::npos)
    return Status::Ok();
  return Status::InvalidArgument(
      "'" + fqrn +
      "' is not a valid repository name (a fully qualified name such as "
      "software.example.org: letters, digits, '.', '_' and '-', no '/')");
}

Status ValidateGivenRepositoryNames(const CLI::App& cli) {
  for (const char* name : {"fqrn", "name"}) {
    const CLI::Option* opt = cli.get_option_no_throw(name);
    if (opt == nullptr || !opt->get_positional()) continue;
    for (const std::string& given : opt->results())
      CVMFS_RETURN_IF_ERROR(ValidateRepositoryName(given));
  }
  return Status::Ok();
}

namespace {
constexpr const char* kRefusedGroup = "Not supported";
}  // namespace

void AddRefusedOption(CLI::App* cmd, const std::string& names,
                      const std::string& reason, bool takes_value) {
  CLI::Option* opt = takes_value ? cmd->add_option(names, reason)
                                 : cmd->add_flag(names, reason);
  opt->group(kRefusedGroup);
}

Status RefuseGivenUnsupportedOptions(const CLI::App& cli) {
  for (const CLI::Option* opt : cli.get_options()) {
    if (opt->get_group() != kRefusedGroup || opt->count() == 0) continue;
    const std::string name = !opt->get_snames().empty()
                                 ? "-" + opt->get_snames().front()
                                 : opt->get_name();
    return Status::NotSupported(cli.get_name() + " " + name +
                                " is not supported: " + opt->get_description());
  }
  return Status::Ok();
}

int RunGivenCommand(const std::vector<Command>& commands) {
  for (const Command& command : commands) {
    if (!command.cli->parsed()) continue;
    // Before anything touches a path made of the name.
    Status names = ValidateGivenRepositoryNames(*command.cli);
    if (!names.ok()) return FailMessage(names);
    Status refused = RefuseGivenUnsupportedOptions(*command.cli);
    if (!refused.ok()) return FailMessage(refused);
    return command.run();
  }
  return 0;
}

int FailMessage(const Status& st) {
  std::fprintf(stderr, "cvmfs_server: %s\n", st.ToString().c_str());
  return st.code() == Status::Code::kInvalidArgument ? 2 : 1;
}

int ExitCode(const Status& st) { return st.ok() ? 0 : FailMessage(st); }

void PrintNothingPublished(publisher::Repository& repo) {
  auto m = repo.CurrentManifest();
  if (m.ok())
    std::fprintf(
        stderr,
        "cvmfs_server: nothing was published; %s stays at revision %llu\n",
        repo.config().fqrn.c_str(),
        static_cast<unsigned long long>(m->manifest.revision));
}

int FailPublish(publisher::Repository& repo, const Status& st) {
  int rc = FailMessage(st);
  PrintNothingPublished(repo);
  return rc;
}

cvmfs::Result<std::string> ResolveFqrn(const cvmfs::SystemPaths& paths,
                                       const std::string& given) {
  if (!given.empty()) {
    CVMFS_RETURN_IF_ERROR(ValidateRepositoryName(given));
    return given;
  }
  auto names = cvmfs::ListDirectory(paths.RepositoriesD());
  if (names.ok() && names->size() == 1) {
    CVMFS_RETURN_IF_ERROR(ValidateRepositoryName(names->front()));
    return names->front();
  }
  return Status::InvalidArgument(
      "name the repository (there is not exactly one here)");
}

cvmfs::Result<std::unique_ptr<publisher::Repository>> OpenRepository(
    const cvmfs::SystemPaths& paths, const std::string& given) {
  CVMFS_ASSIGN_OR_RETURN(std::string fqrn, ResolveFqrn(paths, given));
  return publisher::Repository::Open(paths, fqrn);
}

bool Confirm(const std::string& question) {
  std::printf("%s (y/N)? ", question.c_str());
  std::fflush(stdout);
  std::string reply;
  if (!std::getline(std::cin, reply)) {
    std::printf("\n");
    return false;
  }
  return reply == "y" || reply == "Y";
}

Status NotConfirmed(const std::string& consequence) {
  return Status::InvalidArgument("not confirmed (answer y, or give -f): " +
                                 consequence);
}

std::string FormatLocalTime(int64_t unix_seconds) {
  return cvmfs::FormatTime(unix_seconds, "%a %b %d %H:%M:%S %Y",
                           cvmfs::TimeZone::kLocal);
}

}  // namespace cvmfs_server
