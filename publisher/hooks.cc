#include "publisher/hooks.h"

#include <spawn.h>
#include <sys/wait.h>

#include <cerrno>
#include <vector>

#include "cvmfs/file_util.h"

extern char** environ;

namespace publisher {

using cvmfs::Status;

std::string HooksFile(const cvmfs::SystemPaths& paths) {
  return paths.EtcCvmfs() + "/cvmfs_server_hooks.sh";
}

Status RunHook(const std::string& hooks_file, const std::string& name,
               const std::string& fqrn) {
  if (!cvmfs::PathExists(hooks_file)) return Status::Ok();
  // The file and the function name are passed as arguments, never spliced
  // into the script, so no name can inject shell code.
  const std::string script =
      "source \"$1\" || exit 126; "
      "if declare -F \"$2\" >/dev/null; then \"$2\" \"$3\"; else exit 0; fi";
  std::vector<std::string> args = {
      "bash", "-c", script, "cvmfs_server_hooks", hooks_file, name, fqrn};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid;
  int rc = ::posix_spawnp(&pid, "bash", nullptr, nullptr, argv.data(), environ);
  if (rc != 0)
    return Status::FromErrno(rc,
                             "running hook " + name + " from " + hooks_file);
  int wstatus = 0;
  while (::waitpid(pid, &wstatus, 0) < 0) {
    if (errno != EINTR)
      return Status::FromErrno(errno, "waiting for hook " + name);
  }
  if (WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0) return Status::Ok();
  std::string how = WIFEXITED(wstatus)
                        ? "exit status " + std::to_string(WEXITSTATUS(wstatus))
                        : "signal " + std::to_string(WTERMSIG(wstatus));
  return Status::Unavailable("hook " + name + " (" + hooks_file +
                             ") failed with " + how);
}

}  // namespace publisher
