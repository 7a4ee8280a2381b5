#include "publisher/mount_table.h"

#include <sstream>

#include "cvmfs/file_util.h"

namespace publisher {

namespace {

bool IsOctal(char c) { return c >= '0' && c <= '7'; }

// "\040" -> ' ' (the kernel escapes blanks, tabs, newlines and backslashes).
std::string Unescape(const std::string& s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '\\' && i + 3 < s.size() && IsOctal(s[i + 1]) &&
        IsOctal(s[i + 2]) && IsOctal(s[i + 3])) {
      out += static_cast<char>((s[i + 1] - '0') * 64 + (s[i + 2] - '0') * 8 +
                               (s[i + 3] - '0'));
      i += 3;
    } else {
      out += s[i];
    }
  }
  return out;
}

bool HasOption(const std::string& options, const std::string& name) {
  std::istringstream in(options);
  std::string item;
  while (std::getline(in, item, ','))
    if (item == name) return true;
  return false;
}

}  // namespace

std::vector<MountEntry> ParseMountInfo(std::string_view text) {
  std::vector<MountEntry> table;
  std::istringstream lines{std::string(text)};
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::vector<std::string> f;
    std::string word;
    while (in >> word) f.push_back(word);
    // id parent dev root mountpoint options [optional...] - fstype source super
    size_t dash = 0;
    for (size_t i = 6; i < f.size(); ++i)
      if (f[i] == "-") {
        dash = i;
        break;
      }
    if (dash == 0 || dash + 1 >= f.size()) continue;
    MountEntry e;
    e.mountpoint = Unescape(f[4]);
    e.read_only = HasOption(f[5], "ro");
    e.fstype = f[dash + 1];
    e.source = dash + 2 < f.size() ? Unescape(f[dash + 2]) : "";
    e.super_options = dash + 3 < f.size() ? Unescape(f[dash + 3]) : "";
    table.push_back(std::move(e));
  }
  return table;
}

std::optional<MountEntry> FindMount(const std::vector<MountEntry>& table,
                                    const std::string& mountpoint) {
  std::optional<MountEntry> found;
  for (const MountEntry& e : table)
    if (e.mountpoint == mountpoint)
      found = e;  // later lines are mounted on top
  return found;
}

cvmfs::Result<std::vector<MountEntry>> ReadMountTable() {
  CVMFS_ASSIGN_OR_RETURN(std::string text,
                         cvmfs::ReadFile("/proc/self/mountinfo"));
  return ParseMountInfo(text);
}

}  // namespace publisher
