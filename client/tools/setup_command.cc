// cvmfs_config setup: prepares the node for mounting (CVMFS's steps, every
// path below $CVMFS_ROOTDIR):
//   mount directory and /var/lib/cvmfs; the cvmfs user (unless nouser);
//   /sbin/mount.cvmfs -> our mount.cvmfs; the autofs map /etc/auto.cvmfs,
//   its master map entry and KillMode=process for autofs.service, with a
//   running automount reloaded (unless nocfgmod, see autofs_setup.h); and
//   autofs started (unless nostart). noautofs = nocfgmod + nostart.
// Every step is idempotent: running setup twice changes nothing.
#include <pwd.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>

#include "client/tools/autofs_setup.h"
#include "client/tools/config_tool.h"
#include "client/tools/repository_config.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

struct SetupOptions {
  bool nouser = false, nocfgmod = false, nostart = false;
};

Result<SetupOptions> ParseOptions(const Args& args) {
  SetupOptions o;
  for (const std::string& a : args) {
    if (a == "nouser") {
      o.nouser = true;
    } else if (a == "nocfgmod") {
      o.nocfgmod = true;
    } else if (a == "nostart") {
      o.nostart = true;
    } else if (a == "noautofs") {
      o.nocfgmod = o.nostart = true;
    } else {
      return Status::InvalidArgument("Bad option: " + a);
    }
  }
  return o;
}

}  // namespace

bool Run(const std::vector<std::string>& argv) {
  pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    std::vector<char*> args;
    for (const std::string& a : argv)
      args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

namespace {

Status EnsureUser(const ConfigToolEnv& env) {
  if (!env.paths.root.empty()) {
    *env.out
        << "Not creating the cvmfs user for a relocated root (CVMFS_ROOTDIR)\n";
    return Status::Ok();
  }
  if (::getpwnam("cvmfs") != nullptr) return Status::Ok();
  if (!Run({"/usr/sbin/groupadd", "-r", "cvmfs"}) &&
      !Run({"/usr/bin/getent", "group", "cvmfs"}))
    return Status::IoError("Cannot create a cvmfs group");
  if (!Run({"/usr/sbin/useradd", "-r", "-g", "cvmfs", "-d", "/var/lib/cvmfs",
            "-s", "/sbin/nologin", "-c", "CernVM-FS service account", "cvmfs"}))
    return Status::IoError("Cannot create a cvmfs user");
  return Status::Ok();
}

Status InstallMountHelper(const ConfigToolEnv& env) {
  const std::string link = env.paths.Under("/sbin/mount.cvmfs");
  const std::string target = JoinPath(env.program_dir, "mount.cvmfs");
  CVMFS_RETURN_IF_ERROR(MakeDirs(env.paths.Under("/sbin")));
  struct stat st;
  if (::lstat(link.c_str(), &st) == 0) {
    if (!S_ISLNK(st.st_mode)) {
      *env.out << "Keeping " << link
               << " (not a symlink; installed by a package?)\n";
      return Status::Ok();
    }
    char current[4096];
    ssize_t n = ::readlink(link.c_str(), current, sizeof(current) - 1);
    if (n > 0 && std::string(current, static_cast<size_t>(n)) == target)
      return Status::Ok();
  }
  const std::string temp = TempNameFor(link);
  if (::symlink(target.c_str(), temp.c_str()) != 0)
    return Status::FromErrno(errno, "symlink " + temp + " -> " + target);
  if (::rename(temp.c_str(), link.c_str()) != 0) {
    int err = errno;
    ::unlink(temp.c_str());
    return Status::FromErrno(err, "rename " + temp + " to " + link);
  }
  return Status::Ok();
}

}  // namespace

bool AutomountRunning() {
  auto pids = ListDirectory("/proc");
  if (!pids.ok()) return false;
  for (const std::string& pid : *pids) {
    if (pid.find_first_not_of("0123456789") != std::string::npos) continue;
    auto comm = ReadFile("/proc/" + pid + "/comm");
    if (comm.ok() && *comm == "automount\n") return true;
  }
  return false;
}

void ReloadAutofs(const ConfigToolEnv& env) {
  if (!env.paths.root.empty() || !AutomountRunning()) return;
  if (::access("/usr/bin/systemctl", X_OK) == 0 &&
      Run({"/usr/bin/systemctl", "reload", "-q", "autofs.service"}))
    return;
  for (const char* service : {"/sbin/service", "/usr/sbin/service"})
    if (::access(service, X_OK) == 0 && Run({service, "autofs", "reload"}))
      return;
  *env.out << "Warning: could not reload autofs; restart it to mount "
              "repositories\n";
}

namespace {

Status ConfigureAutofs(const ConfigToolEnv& env, const std::string& mount_dir) {
  CVMFS_ASSIGN_OR_RETURN(bool map_changed,
                         InstallAutofsMap(env.paths, mount_dir, *env.out));
  CVMFS_ASSIGN_OR_RETURN(bool unit_changed, InstallAutofsKillMode(env.paths));
  if (unit_changed && env.paths.root.empty() &&
      ::access("/usr/bin/systemctl", X_OK) == 0)
    Run({"/usr/bin/systemctl", "daemon-reload"});
  if (map_changed) ReloadAutofs(env);
  return Status::Ok();
}

Status StartAutofs(const ConfigToolEnv& env) {
  if (!env.paths.root.empty()) {
    *env.out << "Not starting autofs for a relocated root (CVMFS_ROOTDIR)\n";
    return Status::Ok();
  }
  if (::access("/usr/bin/systemctl", X_OK) == 0) {
    if (Run({"/usr/bin/systemctl", "start", "-q", "autofs.service"}) &&
        Run({"/usr/bin/systemctl", "enable", "-q", "autofs.service"}))
      return Status::Ok();
  }
  for (const char* service : {"/usr/sbin/service", "/sbin/service"})
    if (::access(service, X_OK) == 0 && Run({service, "autofs", "start"}))
      return Status::Ok();
  return Status::Unavailable("cannot start the autofs service");
}

}  // namespace

int RunSetup(const ConfigToolEnv& env, const Args& args) {
  auto options = ParseOptions(args);
  if (!options.ok()) {
    *env.err << options.status().message() << "\n";
    return 1;
  }
  auto global = LoadGlobalOptions(env.paths);
  if (!global.ok()) {
    *env.err << "Failed to read CernVM-FS configuration: "
             << global.status().message() << "\n";
    return 1;
  }
  const std::string mount_dir = MountDir(*global, env.paths);
  // In CVMFS's order; the first failure ends the setup.
  Status st = MakeDirs(mount_dir);
  if (st.ok()) st = MakeDirs(env.paths.VarLibCvmfs());
  if (st.ok() && !options->nouser) st = EnsureUser(env);
  if (st.ok()) st = InstallMountHelper(env);
  if (st.ok() && !options->nocfgmod) st = ConfigureAutofs(env, mount_dir);
  if (st.ok() && !options->nostart) st = StartAutofs(env);
  if (st.ok()) return 0;
  *env.err << "cvmfs_config setup: " << st.message() << "\n";
  return 1;
}

}  // namespace cvmfs::tools
