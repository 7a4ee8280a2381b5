// Pathspec: one path pattern of a `.cvmfsdirtab`, with CVMFS's syntax.
//
// A pathspec is a '/'-separated list of element patterns; it is absolute
// when it starts with '/'. Inside an element, `*` stands for any run of
// characters, `?` for one character, and `\` escapes `*`, `?` and `\`
// itself (any other escape is invalid). Empty elements ("a//b") and one
// trailing '/' are ignored; a spec without any element ("/") is invalid.
//
// Two ways to match a path (always absolute, "/a/b", optionally with one
// trailing '/'):
//
//   Matches()        per component, like glob(3): `*` and `?` never cross
//                    '/', the path must have as many components as the spec,
//                    and a component's leading '.' is matched only by a
//                    literal '.' (`/sw/*` does not match `/sw/.git`).
//                    A relative spec never matches.
//   MatchesRelaxed() against the whole path, as CVMFS matches negative
//                    dirtab rules: `*` also crosses '/', so the relative
//                    spec `*.git` matches `/sw/x/y.git`; `?` still stands
//                    for one character other than '/'; leading dots are
//                    not special.
//
// Thread safety: immutable after Parse; const methods may run concurrently.
#ifndef PUBLISHER_PATHSPEC_H_
#define PUBLISHER_PATHSPEC_H_

#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/status.h"

namespace publisher {

class Pathspec {
 public:
  // InvalidArgument naming the spec and the reason when it is malformed.
  static cvmfs::Result<Pathspec> Parse(std::string_view spec);

  bool Matches(std::string_view path) const;
  bool MatchesRelaxed(std::string_view path) const;

  bool absolute() const { return absolute_; }
  // The spec as written (for messages).
  const std::string& text() const { return text_; }

  // Equal when absoluteness and every element's pattern are the same, so
  // "/a/b", "/a//b" and "/a/b/" are one spec (CVMFS's operator==).
  bool operator==(const Pathspec& other) const;
  bool operator!=(const Pathspec& other) const { return !(*this == other); }

 private:
  // One pattern character: a literal or a wildcard.
  struct Token {
    enum Kind { kLiteral, kStar, kQuestion } kind;
    char c;  // for kLiteral
    bool operator==(const Token& o) const {
      return kind == o.kind && (kind != kLiteral || c == o.c);
    }
  };
  using Element = std::vector<Token>;

  static cvmfs::Result<Element> ParseElement(std::string_view element,
                                             std::string_view spec);
  // Whole-string wildcard match; `star_crosses_slash` picks relaxed mode.
  static bool Glob(const std::vector<Token>& pattern, std::string_view s,
                   bool star_crosses_slash);

  std::string text_;
  bool absolute_ = false;
  std::vector<Element> elements_;
};

}  // namespace publisher

#endif  // PUBLISHER_PATHSPEC_H_
