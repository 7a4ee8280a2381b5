#include "client/tools/process_table.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>

#include "client/tools/mount_table.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

std::string ReadLink(const std::string& path) {
  char buf[4096];
  ssize_t n = ::readlink(path.c_str(), buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

std::string StripDeleted(std::string path) {
  const std::string mark = " (deleted)";
  if (path.size() > mark.size() &&
      path.compare(path.size() - mark.size(), mark.size(), mark) == 0)
    path.resize(path.size() - mark.size());
  return path;
}

// "00:2f" (hex, as in /proc/<pid>/maps) as "0:47".
std::string DecimalDevice(const std::string& hex) {
  size_t colon = hex.find(':');
  if (colon == std::string::npos) return "";
  return std::to_string(
             std::strtoul(hex.substr(0, colon).c_str(), nullptr, 16)) +
         ":" +
         std::to_string(
             std::strtoul(hex.substr(colon + 1).c_str(), nullptr, 16));
}

bool MapsDevice(const std::string& maps_file, const std::string& device) {
  std::ifstream in(maps_file);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream fields(line);
    std::string range, perms, offset, dev, inode;
    if (!(fields >> range >> perms >> offset >> dev >> inode)) continue;
    if (inode != "0" && DecimalDevice(dev) == device) return true;
  }
  return false;
}

}  // namespace

std::vector<pid_t> ListPids(const std::string& proc) {
  std::vector<pid_t> pids;
  auto names = ListDirectory(proc);
  if (!names.ok()) return pids;
  for (const std::string& n : *names) {
    if (n.empty() || n.find_first_not_of("0123456789") != std::string::npos)
      continue;
    pids.push_back(static_cast<pid_t>(std::atol(n.c_str())));
  }
  std::sort(pids.begin(), pids.end());
  return pids;
}

std::string ProcessExecutable(const std::string& proc, pid_t pid) {
  return StripDeleted(ReadLink(proc + "/" + std::to_string(pid) + "/exe"));
}

std::vector<pid_t> ProcessesRunning(const std::string& proc,
                                    const std::string& exe, pid_t self) {
  std::vector<pid_t> out;
  for (pid_t pid : ListPids(proc))
    if (pid != self && ProcessExecutable(proc, pid) == exe) out.push_back(pid);
  return out;
}

bool ProcessUsesMount(const std::string& proc, pid_t pid,
                      const std::string& mountpoint,
                      const std::string& device) {
  const std::string dir = proc + "/" + std::to_string(pid);
  for (const char* link : {"cwd", "root", "exe"}) {
    const std::string target = StripDeleted(ReadLink(dir + "/" + link));
    if (!target.empty() && IsBelow(target, mountpoint)) return true;
  }
  auto fds = ListDirectory(dir + "/fd");
  if (fds.ok()) {
    for (const std::string& fd : *fds) {
      const std::string target = StripDeleted(ReadLink(dir + "/fd/" + fd));
      if (!target.empty() && target[0] == '/' && IsBelow(target, mountpoint))
        return true;
    }
  }
  return !device.empty() && MapsDevice(dir + "/maps", device);
}

std::vector<pid_t> ProcessesUsingMount(const std::string& proc,
                                       const std::string& mountpoint,
                                       const std::string& device) {
  std::vector<pid_t> out;
  for (pid_t pid : ListPids(proc))
    if (ProcessUsesMount(proc, pid, mountpoint, device)) out.push_back(pid);
  return out;
}

}  // namespace cvmfs::tools
