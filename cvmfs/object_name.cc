#include "cvmfs/object_name.h"

namespace cvmfs {

std::string ObjectPath(const Digest& digest, ObjectSuffix suffix) {
  std::string hex = digest.ToString();
  std::string path;
  path.reserve(hex.size() + 8);
  path.append("data/").append(hex, 0, 2).append("/").append(hex, 2,
                                                            std::string::npos);
  if (suffix != ObjectSuffix::kNone) path.push_back(static_cast<char>(suffix));
  return path;
}

Result<ObjectName> ParseObjectPath(std::string_view path) {
  const std::string bad = "not an object path: '" + std::string(path) + "'";
  if (path.substr(0, 5) != "data/" || path.size() < 9 || path[7] != '/')
    return Status::InvalidArgument(bad);
  std::string text(path.substr(5, 2));
  text.append(path.substr(8));
  ObjectName name;
  char last = text.empty() ? 0 : text.back();
  if (last == 'C' || last == 'P' || last == 'H' || last == 'X' || last == 'M' ||
      last == 'L' || last == 'B') {
    name.suffix = static_cast<ObjectSuffix>(last);
    text.pop_back();
  }
  auto digest = Digest::Parse(text);
  if (!digest.ok() || digest->algorithm == HashAlgorithm::kMd5)
    return Status::InvalidArgument(bad);
  name.digest = *digest;
  return name;
}

}  // namespace cvmfs
