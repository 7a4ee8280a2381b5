#include "cvmfs/prefetch_list.h"

#include <cctype>
#include <set>

#include "cvmfs/text.h"

namespace cvmfs {

namespace {

bool NeedsEscape(unsigned char c) { return c < 0x20 || c == 0x7f || c == '%'; }

int HexValue(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

// Splits `text` into lines; a last line without '\n' is returned with
// `terminated` false.
struct Line {
  std::string_view text;
  size_t number;
  bool terminated;
};
std::vector<Line> SplitLines(std::string_view text) {
  std::vector<Line> lines;
  size_t pos = 0, number = 1;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    const bool terminated = end != std::string_view::npos;
    if (!terminated) end = text.size();
    lines.push_back(Line{text.substr(pos, end - pos), number++, terminated});
    pos = end + 1;
  }
  return lines;
}

// Cuts the next space-separated field off the front of `rest`.
std::optional<std::string_view> Field(std::string_view* rest) {
  if (rest->empty()) return std::nullopt;
  size_t space = rest->find(' ');
  std::string_view field = rest->substr(0, space);
  *rest = space == std::string_view::npos ? std::string_view()
                                          : rest->substr(space + 1);
  if (field.empty()) return std::nullopt;
  return field;
}

std::optional<uint64_t> Number(std::optional<std::string_view> text) {
  if (!text) return std::nullopt;
  if (text->size() > 1 && (*text)[0] == '0') return std::nullopt;  // canonical
  return ParseUint64(*text, 19);
}

// A content hash in its canonical text form (what Digest::ToString writes).
Result<Digest> ContentHash(std::optional<std::string_view> text) {
  if (!text) return Status::Corruption("missing hash");
  auto digest = Digest::Parse(*text);
  if (!digest.ok()) return digest.status();
  if (digest->algorithm == HashAlgorithm::kMd5 || digest->ToString() != *text)
    return Status::Corruption("'" + std::string(*text) +
                              "' is not a content hash");
  return digest;
}

Result<Compression> CompressionField(std::optional<std::string_view> text) {
  if (!text) return Status::Corruption("missing compression");
  if (*text == "zlib") return Compression::kZlib;
  if (*text == "none") return Compression::kNone;
  return Status::Corruption("unknown compression '" + std::string(*text) + "'");
}

Result<std::string> PathField(std::string_view rest) {
  CVMFS_ASSIGN_OR_RETURN(std::string path, UnescapeListPath(rest));
  if (path.size() < 2 || path[0] != '/')
    return Status::Corruption("'" + std::string(rest) +
                              "' is not an absolute repository path");
  return path;
}

// Builds the lists line by line; each Take* handles one kind of line.
class ListSetParser {
 public:
  Status Take(std::string_view line);
  Result<std::vector<PrefetchList>> Finish();

 private:
  Status TakeList(std::string_view rest);
  Status TakeFile(std::string_view rest, bool chunked);
  Status TakeChunk(std::string_view rest);
  Status CloseFile();
  Status CloseList();

  std::vector<PrefetchList> lists_;
  std::set<std::string> names_, paths_;
  std::optional<PrefetchFile> file_;  // a chunked file awaiting its chunks
  uint64_t chunks_expected_ = 0;
};

Status ListSetParser::Take(std::string_view line) {
  std::string_view rest = line;
  auto kind = Field(&rest);
  if (!kind) return Status::Corruption("empty line");
  if (*kind == "p") return TakeChunk(rest);
  CVMFS_RETURN_IF_ERROR(CloseFile());
  if (*kind == "list") return TakeList(rest);
  if (lists_.empty())
    return Status::Corruption("file before the first 'list' line");
  if (*kind == "f") return TakeFile(rest, false);
  if (*kind == "c") return TakeFile(rest, true);
  return Status::Corruption("unknown line type '" + std::string(*kind) + "'");
}

Status ListSetParser::TakeList(std::string_view rest) {
  CVMFS_RETURN_IF_ERROR(CloseList());
  Status valid = ValidatePrefetchListName(rest);
  if (!valid.ok()) return Status::Corruption(valid.message());
  if (!names_.insert(std::string(rest)).second)
    return Status::Corruption("duplicate list name '" + std::string(rest) +
                              "'");
  lists_.push_back(PrefetchList{std::string(rest), {}});
  paths_.clear();
  return Status::Ok();
}

Status ListSetParser::TakeFile(std::string_view rest, bool chunked) {
  PrefetchFile f;
  std::optional<uint64_t> chunks;
  if (!chunked) {
    CVMFS_ASSIGN_OR_RETURN(Digest hash, ContentHash(Field(&rest)));
    f.hash = hash;
  }
  CVMFS_ASSIGN_OR_RETURN(f.compression, CompressionField(Field(&rest)));
  auto size = Number(Field(&rest));
  if (!size) return Status::Corruption("missing or malformed size");
  f.size = *size;
  if (chunked) {
    chunks = Number(Field(&rest));
    if (!chunks || *chunks == 0)
      return Status::Corruption("missing or malformed chunk count");
  }
  CVMFS_ASSIGN_OR_RETURN(f.path, PathField(rest));
  if (!paths_.insert(f.path).second)
    return Status::Corruption("duplicate path " + EscapeListPath(f.path) +
                              " in list '" + lists_.back().name + "'");
  if (!chunked) {
    lists_.back().files.push_back(std::move(f));
    return Status::Ok();
  }
  file_ = std::move(f);
  chunks_expected_ = *chunks;
  return Status::Ok();
}

Status ListSetParser::TakeChunk(std::string_view rest) {
  if (!file_ || file_->chunks.size() >= chunks_expected_)
    return Status::Corruption("chunk line outside a chunked file");
  PrefetchChunk chunk;
  CVMFS_ASSIGN_OR_RETURN(chunk.hash, ContentHash(Field(&rest)));
  auto size = Number(Field(&rest));
  if (!size || !rest.empty()) return Status::Corruption("malformed chunk size");
  chunk.size = *size;
  file_->chunks.push_back(chunk);
  return Status::Ok();
}

Status ListSetParser::CloseFile() {
  if (!file_) return Status::Ok();
  if (file_->chunks.size() != chunks_expected_)
    return Status::Corruption(EscapeListPath(file_->path) + " announces " +
                              std::to_string(chunks_expected_) +
                              " chunks but has " +
                              std::to_string(file_->chunks.size()));
  lists_.back().files.push_back(std::move(*file_));
  file_.reset();
  return Status::Ok();
}

Status ListSetParser::CloseList() {
  if (!lists_.empty() && lists_.back().files.empty())
    return Status::Corruption("list '" + lists_.back().name + "' has no files");
  return Status::Ok();
}

Result<std::vector<PrefetchList>> ListSetParser::Finish() {
  CVMFS_RETURN_IF_ERROR(CloseFile());
  CVMFS_RETURN_IF_ERROR(CloseList());
  return std::move(lists_);
}

Status AtLine(const Status& st, size_t line) {
  return st.Annotate("prefetch list line " + std::to_string(line));
}

}  // namespace

bool PrefetchFile::operator==(const PrefetchFile& o) const {
  if (path != o.path || compression != o.compression || size != o.size ||
      hash != o.hash || chunks.size() != o.chunks.size())
    return false;
  for (size_t i = 0; i < chunks.size(); ++i)
    if (chunks[i].hash != o.chunks[i].hash ||
        chunks[i].size != o.chunks[i].size)
      return false;
  return true;
}

uint64_t PrefetchList::bytes() const {
  uint64_t total = 0;
  for (const PrefetchFile& f : files) total += f.size;
  return total;
}

size_t PrefetchList::objects() const {
  size_t n = 0;
  for (const PrefetchFile& f : files) n += f.hash ? 1 : f.chunks.size();
  return n;
}

Status ValidatePrefetchListName(std::string_view name) {
  if (name.empty() || name.size() > 64)
    return Status::InvalidArgument("prefetch list name '" + std::string(name) +
                                   "' must have 1 to 64 characters");
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '-')
      return Status::InvalidArgument(
          "prefetch list name '" + std::string(name) +
          "' may only contain letters, digits, '.', '_' and '-'");
  }
  return Status::Ok();
}

std::string EscapeListPath(std::string_view path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  out.reserve(path.size());
  for (char c : path) {
    const auto u = static_cast<unsigned char>(c);
    if (!NeedsEscape(u)) {
      out += c;
      continue;
    }
    out += '%';
    out += kHex[u >> 4];
    out += kHex[u & 0xf];
  }
  return out;
}

Result<std::string> UnescapeListPath(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    const auto u = static_cast<unsigned char>(text[i]);
    if (u < 0x20 || u == 0x7f)
      return Status::InvalidArgument("unescaped control character in path");
    if (u != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size())
      return Status::InvalidArgument("truncated %-escape in path");
    const int h = HexValue(text[i + 1]), l = HexValue(text[i + 2]);
    if (h < 0 || l < 0)
      return Status::InvalidArgument("malformed %-escape in path");
    const auto decoded = static_cast<unsigned char>(h * 16 + l);
    // Only what EscapeListPath escapes may be escaped: one spelling per path.
    if (!NeedsEscape(decoded) ||
        std::islower(static_cast<unsigned char>(text[i + 1])) ||
        std::islower(static_cast<unsigned char>(text[i + 2])))
      return Status::InvalidArgument("needless or lowercase %-escape in path");
    out += static_cast<char>(decoded);
    i += 2;
  }
  return out;
}

std::string FormatRecordedPaths(const std::vector<std::string>& paths,
                                const std::string& header) {
  std::string out;
  if (!header.empty()) out += "# " + EscapeListPath(header) + "\n";
  for (const std::string& p : paths) out += EscapeListPath(p) + "\n";
  return out;
}

Result<std::vector<std::string>> ParseRecordedPaths(std::string_view text) {
  std::vector<std::string> paths;
  std::set<std::string> seen;
  for (const Line& line : SplitLines(text)) {
    std::string_view t = line.text;
    if (!t.empty() && t.back() == '\r')
      t.remove_suffix(1);  // edited on Windows
    if (t.empty() || t[0] == '#') continue;
    auto path = UnescapeListPath(t);
    Status st = path.ok() ? Status::Ok() : path.status();
    if (st.ok() && ((*path)[0] != '/' || path->size() < 2))
      st = Status::InvalidArgument("'" + std::string(t) +
                                   "' is not an absolute repository path");
    if (!st.ok())
      return Status::InvalidArgument("recorded path list line " +
                                     std::to_string(line.number) + ": " +
                                     st.message());
    if (seen.insert(*path).second) paths.push_back(std::move(path).value());
  }
  return paths;
}

std::string SerializePrefetchLists(const std::vector<PrefetchList>& lists) {
  std::string out = std::string(kPrefetchListsMagic) + " " +
                    std::to_string(kPrefetchListsVersion) + "\n";
  for (const PrefetchList& list : lists) {
    out += "list " + list.name + "\n";
    for (const PrefetchFile& f : list.files) {
      const std::string compression(CompressionName(f.compression));
      const std::string size = std::to_string(f.size);
      if (f.hash) {
        out += "f " + f.hash->ToString() + " " + compression + " " + size +
               " " + EscapeListPath(f.path) + "\n";
        continue;
      }
      out += "c " + compression + " " + size + " " +
             std::to_string(f.chunks.size()) + " " + EscapeListPath(f.path) +
             "\n";
      for (const PrefetchChunk& c : f.chunks)
        out += "p " + c.hash.ToString() + " " + std::to_string(c.size) + "\n";
    }
  }
  return out;
}

Result<std::vector<PrefetchList>> ParsePrefetchLists(std::string_view text) {
  std::vector<Line> lines = SplitLines(text);
  const std::string magic = std::string(kPrefetchListsMagic) + " ";
  if (lines.empty() || lines[0].text.substr(0, magic.size()) != magic)
    return Status::Corruption(
        "prefetch list line 1: not a prefetch list set (expected '" + magic +
        std::to_string(kPrefetchListsVersion) + "')");
  auto version = Number(lines[0].text.substr(magic.size()));
  if (!version)
    return Status::Corruption("prefetch list line 1: malformed version");
  if (*version != static_cast<uint64_t>(kPrefetchListsVersion))
    return Status::NotSupported("prefetch list set version " +
                                std::to_string(*version) +
                                " (this client reads version " +
                                std::to_string(kPrefetchListsVersion) + ")");
  ListSetParser parser;
  for (const Line& line : lines) {
    if (!line.terminated)
      return AtLine(Status::Corruption("missing final newline"), line.number);
    if (line.number == 1) continue;
    Status st = parser.Take(line.text);
    if (!st.ok()) return AtLine(st, line.number);
  }
  auto lists = parser.Finish();
  if (!lists.ok()) return AtLine(lists.status(), lines.size());
  return lists;
}

Result<std::optional<Digest>> PrefetchListsObjectOf(const Catalog& root) {
  std::optional<std::string> value = root.Property(kPrefetchListsProperty);
  if (!value) return std::optional<Digest>();
  auto digest = ContentHash(std::string_view(*value));
  if (!digest.ok())
    return digest.status().Annotate("root catalog property " +
                                    std::string(kPrefetchListsProperty));
  return std::optional<Digest>(*digest);
}

}  // namespace cvmfs
