#include "cvmfs/mountinfo.h"

#include <sstream>

#include "cvmfs/text.h"

namespace cvmfs {

namespace {

bool IsOctal(char c, char max = '7') { return c >= '0' && c <= max; }

bool HasOption(const std::string& options, const std::string& name) {
  for (const std::string& item : SplitNonEmpty(options, ","))
    if (item == name) return true;
  return false;
}

// The whitespace-separated fields of each line.
std::vector<std::vector<std::string>> Lines(std::string_view text) {
  std::vector<std::vector<std::string>> lines;
  std::istringstream in{std::string(text)};
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::vector<std::string> fields;
    std::string word;
    while (words >> word) fields.push_back(word);
    lines.push_back(std::move(fields));
  }
  return lines;
}

}  // namespace

std::string UnescapeMountField(std::string_view field) {
  std::string out;
  for (size_t i = 0; i < field.size(); ++i) {
    if (field[i] == '\\' && i + 3 < field.size() &&
        IsOctal(field[i + 1], '3') && IsOctal(field[i + 2]) &&
        IsOctal(field[i + 3])) {
      out += static_cast<char>((field[i + 1] - '0') * 64 +
                               (field[i + 2] - '0') * 8 + (field[i + 3] - '0'));
      i += 3;
    } else {
      out += field[i];
    }
  }
  return out;
}

std::vector<MountEntry> ParseMountInfo(std::string_view text) {
  std::vector<MountEntry> table;
  for (const std::vector<std::string>& f : Lines(text)) {
    // id parent dev root mountpoint options [optional...] - fstype source super
    size_t dash = 0;
    for (size_t i = 6; i < f.size(); ++i)
      if (f[i] == "-") {
        dash = i;
        break;
      }
    if (dash == 0 || dash + 1 >= f.size()) continue;
    MountEntry e;
    e.mountpoint = UnescapeMountField(f[4]);
    e.options = UnescapeMountField(f[5]);
    e.read_only = HasOption(f[5], "ro");
    e.fstype = f[dash + 1];
    e.source = dash + 2 < f.size() ? UnescapeMountField(f[dash + 2]) : "";
    e.super_options =
        dash + 3 < f.size() ? UnescapeMountField(f[dash + 3]) : "";
    table.push_back(std::move(e));
  }
  return table;
}

std::vector<MountEntry> ParseProcMounts(std::string_view text) {
  std::vector<MountEntry> table;
  for (const std::vector<std::string>& f : Lines(text)) {
    // source mountpoint fstype [options [dump [pass]]]
    if (f.size() < 3) continue;
    MountEntry e;
    e.source = UnescapeMountField(f[0]);
    e.mountpoint = UnescapeMountField(f[1]);
    e.fstype = f[2];
    if (f.size() > 3) {
      e.options = UnescapeMountField(f[3]);
      e.read_only = HasOption(f[3], "ro");
    }
    table.push_back(std::move(e));
  }
  return table;
}

}  // namespace cvmfs
