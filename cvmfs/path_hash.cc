#include "cvmfs/path_hash.h"

#include <cstring>

#include "cvmfs/hash.h"

namespace cvmfs {

static int64_t LoadLe64(const uint8_t* p) {
  uint64_t v = 0;
  for (int i = 7; i >= 0; --i) v = (v << 8) | p[i];
  int64_t s;
  std::memcpy(&s, &v, sizeof(s));
  return s;
}

PathHash HashPath(std::string_view path) {
  Digest d = HashString(HashAlgorithm::kMd5, path);
  return PathHash{LoadLe64(d.bytes.data()), LoadLe64(d.bytes.data() + 8)};
}

std::string_view ParentPath(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return std::string_view();
  return path.substr(0, slash);
}

std::string_view BaseName(std::string_view path) {
  size_t slash = path.rfind('/');
  if (slash == std::string_view::npos) return path;
  return path.substr(slash + 1);
}

}  // namespace cvmfs
