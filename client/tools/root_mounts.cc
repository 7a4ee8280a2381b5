#include "client/tools/root_mounts.h"

#include <sys/stat.h>

#include "client/talk/talk_socket.h"
#include "client/tools/repository_config.h"

namespace cvmfs::tools {

namespace {

bool IsSocket(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISSOCK(st.st_mode);
}

// Whether the socket is this mount's: it answers with its mountpoint, or
// it does not answer (its client hangs or died).
bool SocketServes(const std::string& socket, const std::string& mountpoint) {
  if (!IsSocket(socket)) return false;
  auto reply = client::TalkRequest(socket, "mountpoint", /*timeout_s=*/5);
  if (!reply.ok()) return true;
  std::string answer = *reply;
  while (!answer.empty() && answer.back() == '\n') answer.pop_back();
  return answer == mountpoint;
}

}  // namespace

std::vector<RootMount> MountsOfRoot(const std::vector<CvmfsMount>& mounts,
                                    const SystemPaths& paths) {
  std::vector<RootMount> out;
  auto global = LoadGlobalOptions(paths);
  const std::string mount_dir =
      global.ok() ? MountDir(*global, paths) : paths.MountRoot();
  for (const CvmfsMount& m : mounts) {
    auto config = LoadRepositoryConfig(paths, m.fqrn);
    const std::string socket = config.ok() ? config->socket : "";
    if (IsBelow(m.mountpoint, mount_dir) ||
        (!socket.empty() && SocketServes(socket, m.mountpoint)))
      out.push_back(RootMount{m, socket});
  }
  return out;
}

}  // namespace cvmfs::tools
