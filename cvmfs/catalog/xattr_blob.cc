#include "cvmfs/catalog/xattr_blob.h"

#include <algorithm>

namespace cvmfs {

Result<std::string> SerializeXattrs(const XattrList& list) {
  if (list.entries.size() > kMaxXattrCount) {
    return Status::InvalidArgument("too many extended attributes (" +
                                   std::to_string(list.entries.size()) + " > " +
                                   std::to_string(kMaxXattrCount) + ")");
  }
  std::vector<const std::pair<std::string, std::string>*> sorted;
  sorted.reserve(list.entries.size());
  for (const auto& e : list.entries) sorted.push_back(&e);
  std::sort(sorted.begin(), sorted.end(),
            [](const auto* a, const auto* b) { return a->first < b->first; });

  std::string out;
  out.push_back(static_cast<char>(kXattrBlobVersion));
  out.push_back(static_cast<char>(sorted.size()));
  for (size_t i = 0; i < sorted.size(); ++i) {
    const std::string& key = sorted[i]->first;
    const std::string& value = sorted[i]->second;
    if (key.empty())
      return Status::InvalidArgument("empty extended attribute name");
    if (key.find('\0') != std::string::npos)
      return Status::InvalidArgument("extended attribute name contains NUL");
    if (key.size() > kMaxXattrKeySize)
      return Status::InvalidArgument(
          "extended attribute name longer than 255 bytes");
    if (value.size() > kMaxXattrValueSize)
      return Status::InvalidArgument("value of extended attribute '" + key +
                                     "' longer than 255 bytes");
    if (i > 0 && sorted[i - 1]->first == key)
      return Status::InvalidArgument("duplicate extended attribute '" + key +
                                     "'");
    out.push_back(static_cast<char>(key.size()));
    out.push_back(static_cast<char>(value.size()));
    out += key;
    out += value;
  }
  return out;
}

Result<XattrList> ParseXattrs(std::string_view blob) {
  if (blob.size() < 2)
    return Status::Corruption("xattr blob shorter than its header");
  auto byte = [&blob](size_t pos) { return static_cast<uint8_t>(blob[pos]); };
  if (byte(0) != kXattrBlobVersion) {
    return Status::Corruption("unknown xattr blob version " +
                              std::to_string(byte(0)));
  }
  size_t count = byte(1);
  size_t pos = 2;
  XattrList list;
  list.entries.reserve(count);
  for (size_t i = 0; i < count; ++i) {
    if (blob.size() - pos < 2)
      return Status::Corruption("truncated xattr blob");
    size_t key_len = byte(pos);
    size_t value_len = byte(pos + 1);
    pos += 2;
    if (blob.size() - pos < key_len + value_len)
      return Status::Corruption("truncated xattr blob");
    if (key_len == 0) return Status::Corruption("empty key in xattr blob");
    list.entries.emplace_back(
        std::string(blob.substr(pos, key_len)),
        std::string(blob.substr(pos + key_len, value_len)));
    pos += key_len + value_len;
  }
  if (pos != blob.size())
    return Status::Corruption("trailing bytes in xattr blob");
  return list;
}

}  // namespace cvmfs
