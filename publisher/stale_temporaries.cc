#include "publisher/stale_temporaries.h"

#include <errno.h>
#include <signal.h>
#include <unistd.h>

#include <cctype>

#include "cvmfs/file_util.h"
#include "cvmfs/text.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

// Prefixes of temporary names, each followed by "<pid>.".
constexpr std::string_view kPrefixes[] = {"work.", "mkfs.", ".tmp."};

}  // namespace

std::string TempDirTemplate(const std::string& dir, std::string_view kind) {
  return dir + "/" + std::string(kind) + "." + std::to_string(::getpid()) +
         ".XXXXXX";
}

std::optional<pid_t> TemporaryOwner(std::string_view name) {
  for (std::string_view prefix : kPrefixes) {
    if (name.substr(0, prefix.size()) != prefix) continue;
    std::string_view rest = name.substr(prefix.size());
    size_t digits = 0;
    while (digits < rest.size() && digits < 10 &&
           std::isdigit(static_cast<unsigned char>(rest[digits])))
      ++digits;
    if (digits == 0 || digits >= rest.size() || rest[digits] != '.')
      return std::nullopt;
    // 1 to 10 digits: always a number.
    const uint64_t pid = *cvmfs::ParseUint64(rest.substr(0, digits));
    if (pid == 0 || pid > 0x7fffffff) return std::nullopt;
    return static_cast<pid_t>(pid);
  }
  return std::nullopt;
}

bool ProcessAlive(pid_t pid) { return ::kill(pid, 0) == 0 || errno == EPERM; }

Result<size_t> RemoveStaleTemporaries(const std::string& dir,
                                      const std::function<bool(pid_t)>& alive) {
  if (!cvmfs::IsDirectory(dir)) return size_t{0};
  CVMFS_ASSIGN_OR_RETURN(auto names, cvmfs::ListDirectory(dir));
  size_t removed = 0;
  for (const std::string& name : names) {
    std::optional<pid_t> owner = TemporaryOwner(name);
    if (!owner || alive(*owner)) continue;
    const std::string path = dir + "/" + name;
    CVMFS_RETURN_IF_ERROR(cvmfs::RemoveTree(path).Annotate(
        "removing " + path + ", left behind by process " +
        std::to_string(*owner)));
    ++removed;
  }
  return removed;
}

}  // namespace publisher
