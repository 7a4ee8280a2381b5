#include "cvmfs/system_paths.h"

#include <cstdlib>

namespace cvmfs {

SystemPaths SystemPaths::FromEnvironment() {
  SystemPaths p;
  const char* root = std::getenv("CVMFS_ROOTDIR");
  if (root && *root) {
    p.root = root;
    while (p.root.size() > 1 && p.root.back() == '/') p.root.pop_back();
    if (p.root == "/") p.root.clear();
  }
  return p;
}

}  // namespace cvmfs
