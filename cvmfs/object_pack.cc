#include "cvmfs/object_pack.h"

#include <set>
#include <utility>

#include "cvmfs/base64.h"
#include "cvmfs/text.h"

namespace cvmfs {

namespace {

bool IsSuffix(char c) {
  switch (static_cast<ObjectSuffix>(c)) {
    case ObjectSuffix::kCatalog:
    case ObjectSuffix::kPartial:
    case ObjectSuffix::kHistory:
    case ObjectSuffix::kCertificate:
    case ObjectSuffix::kMetainfo:
    case ObjectSuffix::kMicroCatalog:
    case ObjectSuffix::kBundle:
      return true;
    default:
      return false;
  }
}

// 20 digits hold any uint64_t; ParseUint64 checks the range.
std::optional<uint64_t> ParseCanonical(std::string_view s) {
  if (s.size() > 1 && s[0] == '0') return std::nullopt;
  return ParseUint64(s, 20);
}

Status Bad(const std::string& what) {
  return Status::InvalidArgument("object pack: " + what);
}

// "<letter><decimal>\n" at the front of `*rest`.
Result<uint64_t> TakeKey(std::string_view* rest, char key) {
  size_t eol = rest->find('\n');
  if (eol == std::string_view::npos || eol < 2 || (*rest)[0] != key)
    return Bad(std::string("expected the ") + key + " line");
  std::optional<uint64_t> v = ParseCanonical(rest->substr(1, eol - 1));
  if (!v) return Bad(std::string("bad number in the ") + key + " line");
  rest->remove_prefix(eol + 1);
  return *v;
}

Result<ObjectPackEntry> ParseEntry(std::string_view line) {
  ObjectPackEntry e;
  if (line.size() < 2 || line[1] != ' ') return Bad("bad entry line");
  if (line[0] == 'C') {
    e.kind = ObjectPackEntry::Kind::kCas;
  } else if (line[0] == 'N') {
    e.kind = ObjectPackEntry::Kind::kNamed;
  } else {
    return Bad("unknown entry type");
  }
  std::vector<std::string_view> fields;
  std::string_view rest = line.substr(2);
  while (true) {
    size_t sp = rest.find(' ');
    fields.push_back(rest.substr(0, sp));
    if (sp == std::string_view::npos) break;
    rest.remove_prefix(sp + 1);
  }
  size_t want = e.kind == ObjectPackEntry::Kind::kCas ? 2 : 3;
  if (fields.size() != want) return Bad("wrong number of fields in an entry");
  CVMFS_ASSIGN_OR_RETURN(e.id, ParseObjectPackId(fields[0]));
  std::optional<uint64_t> size = ParseCanonical(fields[1]);
  if (!size) return Bad("bad object size");
  e.size = *size;
  if (e.kind == ObjectPackEntry::Kind::kNamed) {
    std::optional<std::string> name = Debase64(fields[2]);
    if (!name || !IsSafeRelativePath(*name)) return Bad("bad object name");
    e.name = std::move(*name);
  }
  return e;
}

}  // namespace

std::string ObjectPackId(const ObjectName& id) {
  std::string s = id.digest.ToString();
  if (id.suffix != ObjectSuffix::kNone) s += static_cast<char>(id.suffix);
  return s;
}

Result<ObjectName> ParseObjectPackId(std::string_view text) {
  ObjectName id;
  if (!text.empty() && IsSuffix(text.back())) {
    id.suffix = static_cast<ObjectSuffix>(text.back());
    text.remove_suffix(1);
  }
  Result<Digest> d = Digest::Parse(text);
  if (!d.ok()) return Bad("bad object id");
  // Only the canonical form, so the header is what a builder would write.
  if (d->ToString() != text) return Bad("object id not in canonical form");
  id.digest = *d;
  return id;
}

bool IsSafeRelativePath(std::string_view path) {
  if (path.empty() || path.front() == '/') return false;
  while (true) {
    size_t slash = path.find('/');
    std::string_view part = path.substr(0, slash);
    if (part.empty() || part == "." || part == "..") return false;
    if (part.find('\0') != std::string_view::npos) return false;
    if (slash == std::string_view::npos) return true;
    path.remove_prefix(slash + 1);
  }
}

bool ObjectPackBuilder::Fits(size_t bytes) const {
  if (entries_.empty()) return true;
  return entries_.size() < kObjectPackMaxObjects &&
         payload_.size() + bytes <= limit_;
}

bool ObjectPackBuilder::AddCas(const ObjectName& id, std::string_view bytes) {
  if (!Fits(bytes.size())) return false;
  ObjectPackEntry e;
  e.id = id;
  e.size = bytes.size();
  entries_.push_back(std::move(e));
  payload_.append(bytes);
  return true;
}

bool ObjectPackBuilder::AddNamed(const ObjectName& id, const std::string& name,
                                 std::string_view bytes) {
  if (!Fits(bytes.size())) return false;
  ObjectPackEntry e;
  e.kind = ObjectPackEntry::Kind::kNamed;
  e.id = id;
  e.size = bytes.size();
  e.name = name;
  entries_.push_back(std::move(e));
  payload_.append(bytes);
  return true;
}

std::string ObjectPackBuilder::Header() const {
  std::string h = "V" + std::to_string(kObjectPackVersion) + "\nS" +
                  std::to_string(payload_.size()) + "\nN" +
                  std::to_string(entries_.size()) + "\n--\n";
  for (const ObjectPackEntry& e : entries_) {
    bool named = e.kind == ObjectPackEntry::Kind::kNamed;
    h += named ? "N " : "C ";
    h += ObjectPackId(e.id) + " " + std::to_string(e.size);
    if (named) h += " " + Base64Url(e.name);
    h += '\n';
  }
  return h;
}

std::string ObjectPackBuilder::Serialize() const { return Header() + payload_; }

Result<std::vector<ObjectPackEntry>> ParseObjectPackHeader(
    std::string_view header, uint64_t* payload_size) {
  std::string_view rest = header;
  CVMFS_ASSIGN_OR_RETURN(uint64_t version, TakeKey(&rest, 'V'));
  if (version != kObjectPackVersion)
    return Bad("unsupported version " + std::to_string(version));
  CVMFS_ASSIGN_OR_RETURN(uint64_t total, TakeKey(&rest, 'S'));
  CVMFS_ASSIGN_OR_RETURN(uint64_t count, TakeKey(&rest, 'N'));
  if (count > kObjectPackMaxObjects) return Bad("too many objects");
  if (rest.substr(0, 3) != "--\n") return Bad("missing the -- line");
  rest.remove_prefix(3);
  std::vector<ObjectPackEntry> entries;
  entries.reserve(count);
  std::set<std::pair<Digest, char>> seen;
  uint64_t sum = 0;
  while (!rest.empty()) {
    size_t eol = rest.find('\n');
    if (eol == std::string_view::npos) return Bad("entry without newline");
    if (entries.size() == count) return Bad("more entries than N");
    CVMFS_ASSIGN_OR_RETURN(ObjectPackEntry e, ParseEntry(rest.substr(0, eol)));
    if (!seen.insert({e.id.digest, static_cast<char>(e.id.suffix)}).second)
      return Bad("object listed twice");
    if (e.size > total - sum) return Bad("entry sizes exceed S");
    sum += e.size;
    entries.push_back(std::move(e));
    rest.remove_prefix(eol + 1);
  }
  if (entries.size() != count) return Bad("fewer entries than N");
  if (sum != total) return Bad("entry sizes do not add up to S");
  *payload_size = total;
  return entries;
}

Result<std::vector<ObjectPackEntry>> ParseObjectPack(
    std::string_view pack, size_t header_size, const Digest& header_digest) {
  if (header_size > pack.size()) return Bad("truncated header");
  if (header_size > kObjectPackMaxObjects * kObjectPackHeaderBytesPerObject)
    return Bad("header too big");
  std::string_view header = pack.substr(0, header_size);
  if (HashString(header_digest.algorithm, header) != header_digest)
    return Status::Corruption("object pack: header digest mismatch");
  uint64_t total = 0;
  CVMFS_ASSIGN_OR_RETURN(std::vector<ObjectPackEntry> entries,
                         ParseObjectPackHeader(header, &total));
  std::string_view payload = pack.substr(header_size);
  if (payload.size() < total) return Bad("truncated payload");
  if (payload.size() > total) return Bad("trailing bytes after the payload");
  for (ObjectPackEntry& e : entries) {
    e.bytes = payload.substr(0, e.size);
    payload.remove_prefix(e.size);
  }
  return entries;
}

}  // namespace cvmfs
