#include "client/magic_xattrs_protection.h"

#include <limits>
#include <vector>

#include "cvmfs/text.h"

namespace cvmfs::client {
namespace {

std::vector<std::string> Elements(const std::string& list) {
  std::vector<std::string> out;
  size_t pos = 0;
  while (pos <= list.size()) {
    size_t comma = list.find(',', pos);
    if (comma == std::string::npos) comma = list.size();
    std::string element(Trim(std::string_view(list).substr(pos, comma - pos)));
    if (!element.empty()) out.push_back(std::move(element));
    pos = comma + 1;
  }
  return out;
}

}  // namespace

std::set<std::string> ParseProtectedXattrs(const std::string& list) {
  std::vector<std::string> names = Elements(list);
  return std::set<std::string>(names.begin(), names.end());
}

Result<std::set<gid_t>> ParsePrivilegedGids(const std::string& list) {
  std::set<gid_t> gids;
  for (const std::string& element : Elements(list)) {
    std::optional<int64_t> gid = ParseInt64(element);
    if (!gid || *gid < 0 || *gid > std::numeric_limits<gid_t>::max() - 1)
      return Status::InvalidArgument("'" + element + "' is no group id");
    gids.insert(static_cast<gid_t>(*gid));
  }
  return gids;
}

}  // namespace cvmfs::client
