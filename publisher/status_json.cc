#include "publisher/status_json.h"

#include <cctype>
#include <cstdio>

#include "cvmfs/file_util.h"
#include "cvmfs/time_format.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}

  void SkipSpace() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n' ||
                                   text_[pos_] == '\t' || text_[pos_] == '\r'))
      ++pos_;
  }
  bool Consume(char c) {
    SkipSpace();
    if (pos_ >= text_.size() || text_[pos_] != c) return false;
    ++pos_;
    return true;
  }
  bool AtEnd() {
    SkipSpace();
    return pos_ == text_.size();
  }
  // A JSON string; escapes \" \\ \/ \n \t \r \b \f and \u00XX.
  std::optional<std::string> String() {
    if (!Consume('"')) return std::nullopt;
    std::string out;
    while (pos_ < text_.size()) {
      char c = text_[pos_++];
      if (c == '"') return out;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (pos_ >= text_.size()) return std::nullopt;
      char e = text_[pos_++];
      switch (e) {
        case '"':
        case '\\':
        case '/':
          out += e;
          break;
        case 'n':
          out += '\n';
          break;
        case 't':
          out += '\t';
          break;
        case 'r':
          out += '\r';
          break;
        case 'b':
          out += '\b';
          break;
        case 'f':
          out += '\f';
          break;
        case 'u': {
          unsigned v = 0;
          if (pos_ + 4 > text_.size() ||
              std::sscanf(std::string(text_.substr(pos_, 4)).c_str(), "%4x",
                          &v) != 1 ||
              v > 0x7f)
            return std::nullopt;
          out += static_cast<char>(v);
          pos_ += 4;
          break;
        }
        default:
          return std::nullopt;
      }
    }
    return std::nullopt;
  }

 private:
  std::string_view text_;
  size_t pos_ = 0;
};

std::string Quote(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      char buf[8];
      std::snprintf(buf, sizeof(buf), "\\u%04x", c);
      out += buf;
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string FileOf(const std::string& storage_dir) {
  return storage_dir + "/" + kStatusJsonName;
}

Result<StatusFields> Load(const std::string& storage_dir) {
  const std::string file = FileOf(storage_dir);
  if (!cvmfs::PathExists(file)) return StatusFields{};
  CVMFS_ASSIGN_OR_RETURN(std::string text, cvmfs::ReadFile(file));
  auto fields = ParseStatusJson(text);
  if (!fields.ok()) return fields.status().Annotate(file);
  return fields;
}

}  // namespace

Result<StatusFields> ParseStatusJson(std::string_view text) {
  Reader r(text);
  StatusFields fields;
  const Status bad =
      Status::Corruption("not a flat JSON object of strings (" +
                         std::string(kStatusJsonName) + " format)");
  if (r.AtEnd()) return fields;  // an empty file, as jq leaves none
  if (!r.Consume('{')) return bad;
  if (!r.Consume('}')) {
    do {
      auto key = r.String();
      if (!key || !r.Consume(':')) return bad;
      auto value = r.String();
      if (!value) return bad;
      fields.emplace_back(std::move(*key), std::move(*value));
    } while (r.Consume(','));
    if (!r.Consume('}')) return bad;
  }
  if (!r.AtEnd()) return bad;
  return fields;
}

std::string SerializeStatusJson(const StatusFields& fields) {
  if (fields.empty()) return "{}\n";
  std::string out = "{\n";
  for (size_t i = 0; i < fields.size(); ++i) {
    out += "  " + Quote(fields[i].first) + ": " + Quote(fields[i].second);
    out += i + 1 < fields.size() ? ",\n" : "\n";
  }
  return out + "}\n";
}

Result<std::optional<std::string>> ReadStatusField(
    const std::string& storage_dir, const std::string& key) {
  CVMFS_ASSIGN_OR_RETURN(StatusFields fields, Load(storage_dir));
  for (const auto& [k, v] : fields)
    if (k == key) return std::optional<std::string>(v);
  return std::optional<std::string>();
}

Status UpdateStatusField(const std::string& storage_dir, const std::string& key,
                         const std::string& value) {
  CVMFS_ASSIGN_OR_RETURN(StatusFields fields, Load(storage_dir));
  bool found = false;
  for (auto& [k, v] : fields) {
    if (k != key) continue;
    v = value;
    found = true;
  }
  if (!found) fields.emplace_back(key, value);
  return cvmfs::WriteFileAtomic(FileOf(storage_dir),
                                SerializeStatusJson(fields), 0644)
      .Annotate("writing " + FileOf(storage_dir));
}

namespace {

// A recursive-descent recognizer of RFC 8259; depth-limited.
class JsonValidator {
 public:
  explicit JsonValidator(std::string_view t) : t_(t) {}
  bool Document() {
    if (!Value(0)) return false;
    Space();
    return pos_ == t_.size();
  }
  size_t pos() const { return pos_; }

 private:
  void Space() {
    while (pos_ < t_.size() && (t_[pos_] == ' ' || t_[pos_] == '\n' ||
                                t_[pos_] == '\t' || t_[pos_] == '\r'))
      ++pos_;
  }
  bool Literal(std::string_view word) {
    if (t_.substr(pos_, word.size()) != word) return false;
    pos_ += word.size();
    return true;
  }
  bool Digits() {
    size_t start = pos_;
    while (pos_ < t_.size() && t_[pos_] >= '0' && t_[pos_] <= '9') ++pos_;
    return pos_ > start;
  }
  bool Number() {
    if (pos_ < t_.size() && t_[pos_] == '-') ++pos_;
    if (pos_ < t_.size() && t_[pos_] == '0') {
      ++pos_;
    } else if (!Digits()) {
      return false;
    }
    if (pos_ < t_.size() && t_[pos_] == '.') {
      ++pos_;
      if (!Digits()) return false;
    }
    if (pos_ < t_.size() && (t_[pos_] == 'e' || t_[pos_] == 'E')) {
      ++pos_;
      if (pos_ < t_.size() && (t_[pos_] == '+' || t_[pos_] == '-')) ++pos_;
      if (!Digits()) return false;
    }
    return true;
  }
  bool String() {
    if (pos_ >= t_.size() || t_[pos_] != '"') return false;
    ++pos_;
    while (pos_ < t_.size()) {
      const unsigned char c = static_cast<unsigned char>(t_[pos_++]);
      if (c == '"') return true;
      if (c < 0x20) return false;
      if (c != '\\') continue;
      if (pos_ >= t_.size()) return false;
      const char e = t_[pos_++];
      if (e == 'u') {
        for (int i = 0; i < 4; ++i, ++pos_)
          if (pos_ >= t_.size() ||
              !std::isxdigit(static_cast<unsigned char>(t_[pos_])))
            return false;
      } else if (std::string_view("\"\\/bfnrt").find(e) ==
                 std::string_view::npos) {
        return false;
      }
    }
    return false;
  }
  bool Value(int depth) {
    if (depth > 256) return false;
    Space();
    if (pos_ >= t_.size()) return false;
    switch (t_[pos_]) {
      case '{':
        return Container(depth, '}', true);
      case '[':
        return Container(depth, ']', false);
      case '"':
        return String();
      case 't':
        return Literal("true");
      case 'f':
        return Literal("false");
      case 'n':
        return Literal("null");
      default:
        return Number();
    }
  }
  bool Container(int depth, char close, bool object) {
    ++pos_;
    Space();
    if (pos_ < t_.size() && t_[pos_] == close) {
      ++pos_;
      return true;
    }
    for (;;) {
      if (object) {
        Space();
        if (!String()) return false;
        Space();
        if (pos_ >= t_.size() || t_[pos_++] != ':') return false;
      }
      if (!Value(depth + 1)) return false;
      Space();
      if (pos_ >= t_.size()) return false;
      const char c = t_[pos_++];
      if (c == close) return true;
      if (c != ',') return false;
    }
  }

  std::string_view t_;
  size_t pos_ = 0;
};

}  // namespace

Status ValidateJson(std::string_view text) {
  JsonValidator v(text);
  if (v.Document()) return Status::Ok();
  return Status::Corruption("invalid JSON near byte " +
                            std::to_string(v.pos()));
}

std::string StatusTime(time_t t) {
  return cvmfs::FormatTime(static_cast<int64_t>(t),
                           cvmfs::kDateCommandUtcFormat, cvmfs::TimeZone::kUtc);
}

Result<time_t> ParseStatusTime(std::string_view text) {
  const std::string copy(text);
  struct tm tm = {};
  const char* end = ::strptime(copy.c_str(), "%a %b %d %H:%M:%S UTC %Y", &tm);
  if (end == nullptr || *end != '\0')
    return Status::InvalidArgument("not a `date --utc` time: '" + copy + "'");
  return ::timegm(&tm);
}

}  // namespace publisher
