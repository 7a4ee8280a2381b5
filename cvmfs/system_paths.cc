#include "cvmfs/system_paths.h"

#include <unistd.h>

#include <cstdlib>

namespace cvmfs {

SystemPaths SystemPaths::FromEnvironment() {
  const char* root = std::getenv("CVMFS_ROOTDIR");
  SystemPaths p = FromRoot(root ? root : "");
  // Programs started from here (cvmfs2 by the tools, the publisher's own
  // mounts) may run elsewhere: they inherit the absolute root.
  if (root && *root && p.root != root) {
    if (p.root.empty()) {
      ::unsetenv("CVMFS_ROOTDIR");
    } else {
      ::setenv("CVMFS_ROOTDIR", p.root.c_str(), 1);
    }
  }
  return p;
}

SystemPaths SystemPaths::FromRoot(const std::string& root) {
  SystemPaths p;
  p.root = root;
  if (!p.root.empty() && p.root[0] != '/') {
    // Relative: against the working directory at start, so that every path
    // (and the mount points compared with the kernel's table) is absolute.
    char cwd[4096];
    if (::getcwd(cwd, sizeof(cwd)) != nullptr) {
      std::string base = cwd;
      while (p.root.rfind("./", 0) == 0) p.root.erase(0, 2);
      if (p.root == ".") p.root.clear();
      p.root = base + (base == "/" ? "" : "/") + p.root;
    }
  }
  while (p.root.size() > 1 && p.root.back() == '/') p.root.pop_back();
  if (p.root == "/") p.root.clear();
  return p;
}

}  // namespace cvmfs
