// cvmfs_config status: one line per mounted repository, as CVMFS prints it:
//   "<fqrn> mounted on <mountpoint> with pid <pid>"
// A mount that does not answer its magic attributes (a crashed or hung
// client) gets " - mountpoint unhealthy!" and exit code 1.
#include "client/tools/config_tool.h"

namespace cvmfs::tools {

int RunStatus(const ConfigToolEnv& env, const Args& args) {
  if (!args.empty()) {
    *env.err << "Usage: cvmfs_config status\n";
    return 1;
  }
  auto mounts = ListCvmfsMounts(env.mount_table);
  if (!mounts.ok()) {
    *env.err << mounts.status().message() << "\n";
    return 1;
  }
  int rc = 0;
  for (const CvmfsMount& m : *mounts) {
    auto pid = m.responsive ? MagicAttribute(m.mountpoint, "pid")
                            : Result<std::string>(Status::NotFound(""));
    *env.out << (m.responsive ? m.fqrn : "") << " mounted on " << m.mountpoint
             << " with pid " << (pid.ok() ? *pid : "");
    if (!pid.ok() || pid->empty()) {
      *env.out << " - mountpoint unhealthy!";
      rc = 1;
    }
    *env.out << "\n";
  }
  return rc;
}

}  // namespace cvmfs::tools
