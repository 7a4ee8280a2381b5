#include "publisher/graft_file.h"

#include <cctype>
#include <cerrno>
#include <cstdlib>

namespace publisher {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;

namespace {

std::string_view Trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front())))
    s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back())))
    s.remove_suffix(1);
  return s;
}

std::vector<std::string_view> SplitCommas(std::string_view s) {
  std::vector<std::string_view> out;
  size_t start = 0;
  for (;;) {
    size_t comma = s.find(',', start);
    out.push_back(Trim(s.substr(start, comma - start)));
    if (comma == std::string_view::npos) return out;
    start = comma + 1;
  }
}

std::optional<uint64_t> ParseUint(std::string_view s) {
  if (s.empty() || s.size() > 20) return std::nullopt;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return std::nullopt;
  errno = 0;
  const std::string text(s);
  unsigned long long v = std::strtoull(text.c_str(), nullptr, 10);
  if (errno != 0) return std::nullopt;
  return static_cast<uint64_t>(v);
}

// A hash as CVMFS writes it: hex, the algorithm id, and possibly an object
// suffix letter (ToStringWithSuffix), which says nothing about content.
Result<Digest> ParseHash(std::string_view s) {
  auto d = Digest::Parse(s);
  if (!d.ok() && s.size() > 1 &&
      std::isupper(static_cast<unsigned char>(s.back())))
    d = Digest::Parse(s.substr(0, s.size() - 1));
  return d;
}

}  // namespace

bool IsGraftMarker(std::string_view name) {
  return name.substr(0, sizeof(kGraftPrefix) - 1) == kGraftPrefix;
}

Result<Graft> ParseGraft(std::string_view text, const std::string& name) {
  auto bad = [&name](const std::string& why) {
    return Status::InvalidArgument("graft file " + name + ": " + why +
                                   " (expected size=, checksum=, and "
                                   "optionally compression=, chunk_offsets=, "
                                   "chunk_checksums=)");
  };
  Graft g;
  bool have_size = false, have_checksum = false;
  std::vector<uint64_t> offsets;
  std::vector<Digest> sums;
  size_t line_no = 0;
  while (!text.empty()) {
    size_t nl = text.find('\n');
    std::string_view line = Trim(text.substr(0, nl));
    text = nl == std::string_view::npos ? "" : text.substr(nl + 1);
    ++line_no;
    if (line.empty() || line[0] == '#') continue;
    size_t eq = line.find('=');
    if (eq == std::string_view::npos)
      return bad("line " + std::to_string(line_no) + " is not key=value");
    std::string_view key = Trim(line.substr(0, eq));
    std::string_view value = Trim(line.substr(eq + 1));
    const std::string what = std::string(key) + "='" + std::string(value) + "'";
    if (key == "size") {
      auto v = ParseUint(value);
      if (!v) return bad(what + " is not a number of bytes");
      g.size = *v;
      have_size = true;
    } else if (key == "checksum") {
      auto d = ParseHash(value);
      if (!d.ok()) return bad(what + " is not a content hash");
      g.checksum = *d;
      have_checksum = true;
    } else if (key == "compression") {
      auto c = cvmfs::ParseCompressionName(value);
      if (!c.ok()) return bad(what + ": " + c.status().message());
      g.compression = *c;
    } else if (key == "chunk_offsets") {
      for (std::string_view o : SplitCommas(value)) {
        auto v = ParseUint(o);
        if (!v) return bad("chunk offset '" + std::string(o) + "' is invalid");
        offsets.push_back(*v);
      }
    } else if (key == "chunk_checksums") {
      for (std::string_view h : SplitCommas(value)) {
        auto d = ParseHash(h);
        if (!d.ok())
          return bad("chunk checksum '" + std::string(h) + "' is invalid");
        sums.push_back(*d);
      }
    }
    // Other keys: ignored, as CVMFS does.
  }
  if (!have_size) return bad("no size");
  if (!have_checksum) return bad("no checksum");
  if (offsets.size() != sums.size())
    return bad(std::to_string(offsets.size()) + " chunk offsets but " +
               std::to_string(sums.size()) + " chunk checksums");
  for (size_t i = 0; i < offsets.size(); ++i) {
    if (i == 0 && offsets[0] != 0)
      return bad("the first chunk offset is not 0");
    if (i > 0 && offsets[i] <= offsets[i - 1])
      return bad("chunk offsets do not increase strictly");
    if (offsets[i] >= g.size)
      return bad("chunk offset " + std::to_string(offsets[i]) +
                 " is not below the size " + std::to_string(g.size));
    if (sums[i].algorithm != g.checksum.algorithm)
      return bad("chunk checksum " + sums[i].ToString() +
                 " is of another algorithm than the checksum");
    const uint64_t end = i + 1 < offsets.size() ? offsets[i + 1] : g.size;
    g.chunks.push_back(cvmfs::FileChunk{offsets[i], end - offsets[i], sums[i]});
  }
  return g;
}

}  // namespace publisher
