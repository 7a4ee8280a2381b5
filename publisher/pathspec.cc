#include "publisher/pathspec.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

// Drops one trailing '/' (CVMFS's regular expressions end in "/?$").
std::string_view StripTrailingSlash(std::string_view path) {
  if (path.size() > 1 && path.back() == '/') path.remove_suffix(1);
  return path;
}

}  // namespace

Result<Pathspec::Element> Pathspec::ParseElement(std::string_view element,
                                                 std::string_view spec) {
  Element out;
  for (size_t i = 0; i < element.size(); ++i) {
    const char c = element[i];
    if (c == '*') {
      out.push_back({Token::kStar, 0});
    } else if (c == '?') {
      out.push_back({Token::kQuestion, 0});
    } else if (c != '\\') {
      out.push_back({Token::kLiteral, c});
    } else if (i + 1 == element.size()) {
      return Status::InvalidArgument("pathspec '" + std::string(spec) +
                                     "' ends an element with a lone '\\'");
    } else {
      const char escaped = element[++i];
      if (escaped != '*' && escaped != '?' && escaped != '\\')
        return Status::InvalidArgument(
            "pathspec '" + std::string(spec) + "' has the invalid escape '\\" +
            std::string(1, escaped) + "' (only \\*, \\? and \\\\ exist)");
      out.push_back({Token::kLiteral, escaped});
    }
  }
  return out;
}

Result<Pathspec> Pathspec::Parse(std::string_view spec) {
  Pathspec p;
  p.text_ = std::string(spec);
  p.absolute_ = !spec.empty() && spec.front() == '/';
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t slash = spec.find('/', pos);
    if (slash == std::string_view::npos) slash = spec.size();
    if (slash > pos) {
      CVMFS_ASSIGN_OR_RETURN(Element e,
                             ParseElement(spec.substr(pos, slash - pos), spec));
      p.elements_.push_back(std::move(e));
    }
    pos = slash + 1;
  }
  if (p.elements_.empty())
    return Status::InvalidArgument("pathspec '" + std::string(spec) +
                                   "' names no path element");
  return p;
}

// Classic wildcard matching with backtracking to the last star: linear in
// practice, O(|pattern| * |s|) at worst. A star is greedy-free: it first
// matches nothing and grows one character per backtrack.
bool Pathspec::Glob(const std::vector<Token>& pattern, std::string_view s,
                    bool star_crosses_slash) {
  size_t p = 0, i = 0;
  size_t star_p = std::string_view::npos, star_i = 0;
  while (i < s.size()) {
    if (p < pattern.size() && pattern[p].kind == Token::kStar) {
      star_p = p++;
      star_i = i;
      continue;
    }
    if (p < pattern.size() && s[i] != '/' &&
        (pattern[p].kind == Token::kQuestion ||
         (pattern[p].kind == Token::kLiteral && pattern[p].c == s[i]))) {
      ++p;
      ++i;
      continue;
    }
    if (p < pattern.size() && pattern[p].kind == Token::kLiteral &&
        pattern[p].c == '/' && s[i] == '/') {
      ++p;
      ++i;
      continue;
    }
    // Mismatch: let the last star swallow one more character, if it may.
    if (star_p == std::string_view::npos) return false;
    if (!star_crosses_slash && s[star_i] == '/') return false;
    p = star_p + 1;
    i = ++star_i;
  }
  while (p < pattern.size() && pattern[p].kind == Token::kStar) ++p;
  return p == pattern.size();
}

bool Pathspec::Matches(std::string_view path) const {
  if (!absolute_ || path.empty() || path.front() != '/') return false;
  path = StripTrailingSlash(path).substr(1);
  size_t pos = 0;
  for (size_t e = 0; e < elements_.size(); ++e) {
    if (pos > path.size()) return false;  // fewer components than elements
    size_t slash = path.find('/', pos);
    if (slash == std::string_view::npos) slash = path.size();
    std::string_view component = path.substr(pos, slash - pos);
    if (component.empty()) return false;  // "/" or "a//b": no such directory
    const Element& element = elements_[e];
    // glob(3): a leading '.' must be matched by a literal '.'.
    if (component.front() == '.' && element.front().kind != Token::kLiteral)
      return false;
    if (!Glob(element, component, false)) return false;
    pos = slash + 1;
  }
  return pos == path.size() + 1;  // no component left over
}

bool Pathspec::MatchesRelaxed(std::string_view path) const {
  std::vector<Token> flat;
  if (absolute_) flat.push_back({Token::kLiteral, '/'});
  for (size_t e = 0; e < elements_.size(); ++e) {
    if (e > 0) flat.push_back({Token::kLiteral, '/'});
    flat.insert(flat.end(), elements_[e].begin(), elements_[e].end());
  }
  return Glob(flat, StripTrailingSlash(path), true);
}

bool Pathspec::operator==(const Pathspec& other) const {
  return absolute_ == other.absolute_ && elements_ == other.elements_;
}

}  // namespace publisher
