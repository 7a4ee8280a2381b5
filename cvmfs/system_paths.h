// The fixed system paths of CVMFS, relocated under CVMFS_ROOTDIR.
//
// Every program builds one SystemPaths in main() (from the environment) and
// passes it down; nothing else reads CVMFS_ROOTDIR. With the variable unset
// the root is "/" and the paths are the usual /etc/cvmfs, /srv/cvmfs, ...
#ifndef CVMFS_SYSTEM_PATHS_H_
#define CVMFS_SYSTEM_PATHS_H_

#include <string>

namespace cvmfs {

struct SystemPaths {
  std::string root;  // "" means "/"

  static SystemPaths FromEnvironment();  // reads CVMFS_ROOTDIR

  std::string Under(const std::string& abs) const { return root + abs; }
  std::string EtcCvmfs() const { return Under("/etc/cvmfs"); }
  std::string KeysDir() const { return Under("/etc/cvmfs/keys"); }
  std::string RepositoriesD() const {
    return Under("/etc/cvmfs/repositories.d");
  }
  std::string ServerConfigDir(const std::string& fqrn) const {
    return RepositoriesD() + "/" + fqrn;
  }
  std::string SrvCvmfs() const { return Under("/srv/cvmfs"); }
  std::string Storage(const std::string& fqrn) const {
    return SrvCvmfs() + "/" + fqrn;
  }
  std::string Spool(const std::string& fqrn) const {
    return Under("/var/spool/cvmfs/" + fqrn);
  }
  std::string VarLibCvmfs() const { return Under("/var/lib/cvmfs"); }
  std::string MountRoot() const { return Under("/cvmfs"); }
  std::string RunDir() const { return Under("/var/run/cvmfs"); }
  std::string LogDir() const { return Under("/var/log/cvmfs"); }
};

}  // namespace cvmfs

#endif  // CVMFS_SYSTEM_PATHS_H_
