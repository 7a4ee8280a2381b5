#include "cache/breadcrumb.h"

#include "cvmfs/text.h"

namespace cache {

using cvmfs::Result;
using cvmfs::Status;

std::string FormatBreadcrumb(const Breadcrumb& crumb) {
  return crumb.root_hash.ToString() + "T" + std::to_string(crumb.timestamp) +
         "R" + std::to_string(crumb.revision);
}

Result<Breadcrumb> ParseBreadcrumb(std::string_view raw) {
  std::string_view text = cvmfs::Trim(raw);
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
  std::optional<uint64_t> timestamp = cvmfs::ParseUint64(rest.substr(0, r), 20);
  if (!timestamp) return bad("bad timestamp");
  crumb.timestamp = *timestamp;
  if (r == std::string_view::npos) return crumb;
  std::optional<uint64_t> revision = cvmfs::ParseUint64(rest.substr(r + 1), 20);
  if (!revision) return bad("bad revision");
  crumb.revision = *revision;
  return crumb;
}

}  // namespace cache
