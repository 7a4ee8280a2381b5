#include "cache/breadcrumb.h"

#include <cctype>

namespace cache {

using cvmfs::Result;
using cvmfs::Status;

namespace {

bool ParseUint(std::string_view text, uint64_t* value) {
  if (text.empty() || text.size() > 20) return false;
  uint64_t v = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return false;
    uint64_t next = v * 10 + static_cast<uint64_t>(c - '0');
    if (next / 10 != v) return false;  // overflow
    v = next;
  }
  *value = v;
  return true;
}

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

}  // namespace

std::string FormatBreadcrumb(const Breadcrumb& crumb) {
  return crumb.root_hash.ToString() + "T" + std::to_string(crumb.timestamp) +
         "R" + std::to_string(crumb.revision);
}

Result<Breadcrumb> ParseBreadcrumb(std::string_view raw) {
  std::string_view text = Trim(raw);
  auto bad = [&](const std::string& why) {
    return Status::Corruption("malformed breadcrumb '" + std::string(raw) +
                              "': " + why);
  };
  Breadcrumb crumb;
  size_t t = text.find('T');
  auto hash = cvmfs::Digest::Parse(text.substr(0, t));
  if (!hash.ok() || hash->algorithm == cvmfs::HashAlgorithm::kMd5)
    return bad("no root catalog hash");
  crumb.root_hash = *hash;
  if (t == std::string_view::npos) return crumb;
  std::string_view rest = text.substr(t + 1);
  size_t r = rest.find('R');
  if (!ParseUint(rest.substr(0, r), &crumb.timestamp))
    return bad("bad timestamp");
  if (r != std::string_view::npos &&
      !ParseUint(rest.substr(r + 1), &crumb.revision))
    return bad("bad revision");
  return crumb;
}

}  // namespace cache
