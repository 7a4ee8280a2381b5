// The fixed system paths of CVMFS, relocated under CVMFS_ROOTDIR.
//
// Every program builds one SystemPaths in main() (from the environment) and
// passes it down; nothing else reads CVMFS_ROOTDIR. With the variable unset
// the root is "/" and the paths are the usual /etc/cvmfs, /srv/cvmfs, ...
// A relative CVMFS_ROOTDIR is taken from the working directory at start and
// made absolute, so every path here is absolute.
#ifndef CVMFS_SYSTEM_PATHS_H_
#define CVMFS_SYSTEM_PATHS_H_

#include <string>

namespace cvmfs {

struct SystemPaths {
  std::string root;  // "" means "/"

  // Reads CVMFS_ROOTDIR and, if it was relative or not in its canonical
  // form, sets it to the absolute root for the programs this one starts.
  static SystemPaths FromEnvironment();
  // `root` as CVMFS_ROOTDIR gives it: "" or "/" for none, relative to the
  // working directory unless absolute, trailing slashes dropped.
  static SystemPaths FromRoot(const std::string& root);

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
