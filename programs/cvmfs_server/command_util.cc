#include "programs/cvmfs_server/command_util.h"

#include <cstdio>

#include "cvmfs/file_util.h"

namespace publisher {

int FailMessage(const cvmfs::Status& st) {
  std::fprintf(stderr, "cvmfs_server: %s\n", st.ToString().c_str());
  return st.code() == cvmfs::Status::Code::kInvalidArgument ? 2 : 1;
}

cvmfs::Result<std::string> ResolveFqrn(const cvmfs::SystemPaths& paths, const std::string& given) {
  if (!given.empty()) return given;
  auto names = cvmfs::ListDirectory(paths.RepositoriesD());
  if (names.ok() && names->size() == 1) return names->front();
  return cvmfs::Status::InvalidArgument("name the repository (there is not exactly one here)");
}

}  // namespace publisher
