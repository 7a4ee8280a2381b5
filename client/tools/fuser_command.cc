// cvmfs_config fuser <repository>: the processes that use files of a
// mounted repository, as CVMFS prints them (ascending pids on one line,
// space-separated; an empty line if none). Open descriptors, working and
// root directories, executables and mapped files count (process_table.h).
// CVMFS finds them with lsof and the mount's device id; this looks at
// /proc directly.
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include <algorithm>

#include "client/tools/config_tool.h"
#include "client/tools/process_table.h"
#include "client/tools/repository_config.h"

namespace cvmfs::tools {

int RunFuser(const ConfigToolEnv& env, const Args& args) {
  if (args.size() != 1) {
    *env.err << "Usage: cvmfs_config fuser <repository>\n"
                "one repository name required\n";
    return 1;
  }
  auto global = LoadGlobalOptions(env.paths);
  const std::string fqrn = global.ok() ? MakeFqrn(args[0], *global) : args[0];
  int rc = 1;
  std::vector<pid_t> users;
  for (const CvmfsMount& m : MountedRepositories(env)) {
    if (!m.responsive || m.fqrn != fqrn) continue;
    rc = 0;
    struct stat st {};
    std::string device;
    if (::stat(m.mountpoint.c_str(), &st) == 0)
      device = std::to_string(major(st.st_dev)) + ":" +
               std::to_string(minor(st.st_dev));
    for (pid_t pid : ProcessesUsingMount(env.proc, m.mountpoint, device))
      users.push_back(pid);
  }
  if (rc != 0) {
    *env.err << fqrn << " is not mounted\n";
    return rc;
  }
  std::sort(users.begin(), users.end());
  users.erase(std::unique(users.begin(), users.end()), users.end());
  for (size_t i = 0; i < users.size(); ++i)
    *env.out << (i ? " " : "") << users[i];
  *env.out << "\n";
  return 0;
}

}  // namespace cvmfs::tools
