#include "cvmfs/symlink_expansion.h"

namespace cvmfs {

std::string ExpandSymlink(std::string_view raw, const VariableLookup& lookup) {
  std::string out;
  size_t pos = 0;
  while (pos < raw.size()) {
    size_t start = raw.find("$(", pos);
    if (start == std::string_view::npos) break;
    size_t end = raw.find(')', start + 2);
    if (end == std::string_view::npos) break;
    out.append(raw.substr(pos, start - pos));
    std::string_view body = raw.substr(start + 2, end - start - 2);
    std::string name(body), fallback;
    bool has_default = false;
    size_t sep = body.find(":-");
    if (sep != std::string_view::npos) {
      name = std::string(body.substr(0, sep));
      fallback = std::string(body.substr(sep + 2));
      has_default = true;
    }
    std::optional<std::string> value = lookup(name);
    if (value)
      out += *value;
    else if (has_default)
      out += fallback;
    pos = end + 1;
  }
  out.append(raw.substr(pos));
  return out;
}

}  // namespace cvmfs
