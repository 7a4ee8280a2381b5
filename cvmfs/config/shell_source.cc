#include "cvmfs/config/shell_source.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>

#include "cvmfs/file_util.h"

namespace cvmfs {
namespace {

// The program /bin/sh runs. $1 is the file, the remaining arguments the names
// to read back. The file's own output goes to stderr so that it cannot be
// mistaken for values, which are written to fd 3 as NUL-terminated
// name/value pairs (the environment cannot hold NUL, so this is unambiguous
// for any value, newlines included). The trailing "=end" record, which no
// identifier can collide with, proves the shell got through the whole file.
// `command` bypasses shell functions the file might have defined.
constexpr char kScript[] = R"SH(exec 3>&1 1>&2
_cvmfs_file=$1
shift
. "$_cvmfs_file"
for _cvmfs_name do
  eval "_cvmfs_isset=\${$_cvmfs_name+x}"
  if command [ -n "$_cvmfs_isset" ]; then
    eval "_cvmfs_value=\$$_cvmfs_name"
    command printf '%s\0%s\0' "$_cvmfs_name" "$_cvmfs_value" >&3
  fi
done
command printf '=end\0' >&3
exit 0
)SH";

constexpr char kEndRecord[] = "=end";
constexpr char kDefaultPath[] = "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin";

bool IsIdentifier(std::string_view s) {
  if (s.empty() || std::isdigit(static_cast<unsigned char>(s[0]))) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return c == '_' || std::isalnum(static_cast<unsigned char>(c));
  });
}

std::string_view StripPrefix(std::string_view line, std::string_view word) {
  if (line.substr(0, word.size()) != word || line.size() == word.size())
    return line;
  if (line[word.size()] != ' ' && line[word.size()] != '\t') return line;
  line.remove_prefix(word.size());
  return line.substr(std::min(line.find_first_not_of(" \t"), line.size()));
}

// The name a line assigns, or "" if it is no assignment.
std::string_view AssignedName(std::string_view line) {
  line.remove_prefix(std::min(line.find_first_not_of(" \t"), line.size()));
  if (line.empty() || line[0] == '#') return {};
  line = StripPrefix(StripPrefix(line, "export"), "readonly");
  size_t eq = line.find('=');
  if (eq == std::string_view::npos) return {};
  std::string_view name = line.substr(0, eq);
  return IsIdentifier(name) ? name : std::string_view();
}

struct ShellRun {
  int wait_status = 0;
  std::string out;  // fd 1 of the child
  std::string err;  // fd 2 of the child
};

struct Pipe {
  UniqueFd read;
  UniqueFd write;
};

Result<Pipe> MakePipe() {
  int fds[2];
  if (pipe2(fds, O_CLOEXEC) != 0) return Status::FromErrno(errno, "pipe");
  return Pipe{UniqueFd(fds[0]), UniqueFd(fds[1])};
}

// In the forked child: only async-signal-safe calls. The descriptors are
// first moved above 2 so that dup2() onto 0..2 cannot clobber one of them.
[[noreturn]] void ExecChild(int in, int out, int err, const char* cwd,
                            char* const argv[], char* const envp[]) {
  in = fcntl(in, F_DUPFD, 10);
  out = fcntl(out, F_DUPFD, 10);
  err = fcntl(err, F_DUPFD, 10);
  if (in < 0 || out < 0 || err < 0) _exit(127);
  if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0) _exit(127);
  if (chdir(cwd) != 0) {
    static const char kMsg[] = "cannot change to the file's directory\n";
    (void)!write(2, kMsg, sizeof(kMsg) - 1);
    _exit(127);
  }
  execve(argv[0], argv, envp);
  static const char kMsg[] = "cannot execute /bin/sh\n";
  (void)!write(2, kMsg, sizeof(kMsg) - 1);
  _exit(127);
}

// Reads both pipes to their end; polling both avoids a deadlock when the
// child fills one of them while we block on the other.
Status DrainPipes(UniqueFd* out_fd, UniqueFd* err_fd, ShellRun* run) {
  char buf[16 * 1024];
  while (out_fd->valid() || err_fd->valid()) {
    pollfd pfds[2] = {{out_fd->get(), POLLIN, 0}, {err_fd->get(), POLLIN, 0}};
    if (poll(pfds, 2, -1) < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "poll on the shell's output");
    }
    for (int i = 0; i < 2; ++i) {
      if (pfds[i].fd < 0 || pfds[i].revents == 0) continue;
      UniqueFd* fd = i == 0 ? out_fd : err_fd;
      ssize_t n = read(fd->get(), buf, sizeof(buf));
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return Status::FromErrno(errno, "read the shell's output");
      if (n == 0) fd->Reset();
      (i == 0 ? run->out : run->err)
          .append(buf, static_cast<size_t>(n > 0 ? n : 0));
    }
  }
  return Status::Ok();
}

std::vector<char*> CStrings(std::vector<std::string>* strings) {
  std::vector<char*> result;
  for (std::string& s : *strings) result.push_back(s.data());
  result.push_back(nullptr);
  return result;
}

Result<ShellRun> RunShell(std::vector<std::string> argv,
                          std::vector<std::string> env,
                          const std::string& cwd) {
  UniqueFd dev_null(open("/dev/null", O_RDONLY | O_CLOEXEC));
  if (!dev_null.valid()) return Status::FromErrno(errno, "open /dev/null");
  CVMFS_ASSIGN_OR_RETURN(Pipe out, MakePipe());
  CVMFS_ASSIGN_OR_RETURN(Pipe err, MakePipe());
  std::vector<char*> c_argv = CStrings(&argv);
  std::vector<char*> c_env = CStrings(&env);

  pid_t pid = fork();
  if (pid < 0) return Status::FromErrno(errno, "fork /bin/sh");
  if (pid == 0) {
    ExecChild(dev_null.get(), out.write.get(), err.write.get(), cwd.c_str(),
              c_argv.data(), c_env.data());
  }
  out.write.Reset();
  err.write.Reset();
  ShellRun run;
  Status drained = DrainPipes(&out.read, &err.read, &run);
  out.read.Reset();  // a child still writing now gets SIGPIPE, not a hang
  err.read.Reset();
  while (waitpid(pid, &run.wait_status, 0) < 0) {
    if (errno != EINTR) return Status::FromErrno(errno, "waitpid /bin/sh");
  }
  CVMFS_RETURN_IF_ERROR(drained);
  return run;
}

std::string AbsolutePath(const std::string& path) {
  if (!path.empty() && path[0] == '/') return path;
  char cwd[PATH_MAX];
  if (getcwd(cwd, sizeof(cwd)) == nullptr) return path;
  return JoinPath(cwd, path);
}

std::string ParentDir(const std::string& abs_path) {
  size_t slash = abs_path.find_last_of('/');
  return slash == 0 ? "/" : abs_path.substr(0, slash);
}

std::string TrimmedMessage(std::string msg) {
  while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' '))
    msg.pop_back();
  return msg.empty() ? "(no message)" : msg;
}

// Splits the child's NUL-terminated records; false if the end record is
// missing, i.e. the shell stopped before reaching the end of the file.
bool ParseRecords(const std::string& out,
                  std::map<std::string, std::string>* values) {
  std::vector<std::string> fields;
  size_t pos = 0;
  for (size_t nul; (nul = out.find('\0', pos)) != std::string::npos;
       pos = nul + 1)
    fields.push_back(out.substr(pos, nul - pos));
  if (pos != out.size() || fields.empty() || fields.back() != kEndRecord ||
      fields.size() % 2 != 1) {
    return false;
  }
  for (size_t i = 0; i + 1 < fields.size(); i += 2)
    (*values)[fields[i]] = fields[i + 1];
  return true;
}

std::vector<std::string> EnvironmentStrings(
    const std::map<std::string, std::string>& environment) {
  std::vector<std::string> env;
  for (const auto& [name, value] : environment) {
    if (IsIdentifier(name)) env.push_back(name + "=" + value);
  }
  if (environment.count("PATH") == 0)
    env.push_back(std::string("PATH=") + kDefaultPath);
  return env;
}

}  // namespace

std::vector<std::string> AssignedParameters(std::string_view text) {
  std::vector<std::string> names;
  while (!text.empty()) {
    size_t nl = std::min(text.find('\n'), text.size());
    std::string name(AssignedName(text.substr(0, nl)));
    text.remove_prefix(std::min(nl + 1, text.size()));
    if (!name.empty() &&
        std::find(names.begin(), names.end(), name) == names.end()) {
      names.push_back(std::move(name));
    }
  }
  return names;
}

Result<std::map<std::string, std::string>> SourceShellFile(
    const std::string& path, const std::vector<std::string>& names,
    const std::map<std::string, std::string>& environment) {
  const std::string abs_path = AbsolutePath(path);
  // Checked here so that a missing file is NotFound rather than a shell error.
  if (access(abs_path.c_str(), R_OK) != 0)
    return Status::FromErrno(errno, "read configuration file " + path);
  std::vector<std::string> argv = {"/bin/sh", "-c", kScript, "sh", abs_path};
  argv.insert(argv.end(), names.begin(), names.end());
  CVMFS_ASSIGN_OR_RETURN(
      ShellRun run, RunShell(std::move(argv), EnvironmentStrings(environment),
                             ParentDir(abs_path)));

  std::map<std::string, std::string> values;
  bool exited_ok =
      WIFEXITED(run.wait_status) && WEXITSTATUS(run.wait_status) == 0;
  if (!exited_ok || !ParseRecords(run.out, &values)) {
    return Status::InvalidArgument("/bin/sh cannot source configuration file " +
                                   path + ": " + TrimmedMessage(run.err));
  }
  return values;
}

}  // namespace cvmfs
