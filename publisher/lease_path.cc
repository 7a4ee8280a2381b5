#include "publisher/lease_path.h"

namespace publisher {

std::string LeasePath::ToString() const {
  return fqrn + (path == "/" ? "/" : path);
}

cvmfs::Result<LeasePath> ParseLeasePath(std::string_view text) {
  size_t slash = text.find('/');
  LeasePath lp;
  lp.fqrn = std::string(text.substr(0, slash));
  if (lp.fqrn.empty() || lp.fqrn == "." || lp.fqrn == "..")
    return cvmfs::Status::InvalidArgument("lease path '" + std::string(text) +
                                          "': no repository name");
  std::string_view rest =
      slash == std::string_view::npos ? "" : text.substr(slash + 1);
  if (!rest.empty() && rest.back() == '/') rest.remove_suffix(1);
  lp.path = "/";
  while (!rest.empty()) {
    size_t s = rest.find('/');
    std::string_view part = rest.substr(0, s);
    if (part.empty() || part == "." || part == ".." ||
        part.find('\0') != std::string_view::npos)
      return cvmfs::Status::InvalidArgument("lease path '" + std::string(text) +
                                            "': bad component");
    if (lp.path.size() > 1) lp.path += '/';
    lp.path += part;
    if (s == std::string_view::npos) break;
    rest.remove_prefix(s + 1);
  }
  return lp;
}

bool IsAtOrBelow(std::string_view path, std::string_view base) {
  if (base == "/") return true;
  if (path.substr(0, base.size()) != base) return false;
  return path.size() == base.size() || path[base.size()] == '/';
}

bool ReachesOutside(std::string_view path, std::string_view lease) {
  return !IsAtOrBelow(path, lease) && !IsAtOrBelow(lease, path);
}

bool Overlaps(const LeasePath& a, const LeasePath& b) {
  return a.fqrn == b.fqrn &&
         (IsAtOrBelow(a.path, b.path) || IsAtOrBelow(b.path, a.path));
}

}  // namespace publisher
