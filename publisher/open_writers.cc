#include "publisher/open_writers.h"

#include <fcntl.h>
#include <unistd.h>

#include <cstdlib>

#include "cvmfs/file_util.h"
#include "cvmfs/text.h"

namespace publisher {

namespace {

bool IsBelow(const std::string& path, const std::string& dir) {
  return path == dir ||
         (path.size() > dir.size() && path.compare(0, dir.size(), dir) == 0 &&
          path[dir.size()] == '/');
}

// The open flags of one descriptor (octal "flags:" in fdinfo), or -1.
long OpenFlags(const std::string& fdinfo) {
  auto text = cvmfs::ReadFile(fdinfo);
  if (!text.ok()) return -1;
  size_t pos = text->find("flags:");
  if (pos == std::string::npos) return -1;
  return std::strtol(text->c_str() + pos + 6, nullptr, 8);
}

std::string CommandOf(const std::string& proc_pid) {
  auto comm = cvmfs::ReadFile(proc_pid + "/comm");
  if (!comm.ok()) return "?";
  std::string c = *comm;
  while (!c.empty() && c.back() == '\n') c.pop_back();
  return c;
}

void ScanProcess(const std::string& proc_root, const std::string& pid,
                 const std::string& dir, std::vector<OpenWriter>* out) {
  const std::string base = proc_root + "/" + pid;
  auto fds = cvmfs::ListDirectory(base + "/fd");
  if (!fds.ok()) return;  // gone, or not ours to see
  for (const std::string& fd : *fds) {
    char target[4096];
    ssize_t n =
        ::readlink((base + "/fd/" + fd).c_str(), target, sizeof(target) - 1);
    if (n <= 0) continue;
    std::string path(target, static_cast<size_t>(n));
    if (!IsBelow(path, dir)) continue;
    long flags = OpenFlags(base + "/fdinfo/" + fd);
    if (flags < 0 || (flags & O_ACCMODE) == O_RDONLY) continue;
    out->push_back(OpenWriter{static_cast<pid_t>(std::atol(pid.c_str())),
                              CommandOf(base), path});
  }
}

}  // namespace

std::vector<OpenWriter> FindOpenWriters(const std::string& dir,
                                        const std::string& proc_root) {
  std::vector<OpenWriter> writers;
  auto pids = cvmfs::ListDirectory(proc_root);
  if (!pids.ok()) return writers;
  const std::string self = std::to_string(::getpid());
  for (const std::string& pid : *pids) {
    if (!cvmfs::IsDecimal(pid) || pid == self) continue;
    ScanProcess(proc_root, pid, dir, &writers);
  }
  return writers;
}

std::string DescribeOpenWriters(const std::vector<OpenWriter>& writers) {
  std::string out;
  for (const OpenWriter& w : writers) {
    if (!out.empty()) out += "; ";
    out += "pid " + std::to_string(w.pid) + " (" + w.command + ") has " +
           w.path + " open for writing";
  }
  return out;
}

}  // namespace publisher
