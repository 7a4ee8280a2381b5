// Dirtab: the rules of a repository's `/.cvmfsdirtab`, which name the
// directories that become roots of nested catalogs (CVMFS's dirtab.cc).
//
// One rule per line. Leading blanks are skipped; a line whose first other
// character is '#' is a comment; an empty line is ignored; a line starting
// with '!' (blanks may follow) is a negative rule. The rest of the line is a
// pathspec (pathspec.h), taken as written up to the end of the line.
//
//   /software/*          every directory directly below /software
//   /software/*/v*       ... and their v* subdirectories
//   ! *.git              never a directory whose path ends in .git
//   ! /software/tmp      never /software/tmp
//
// A directory matches when some positive rule Matches() it (per component,
// glob-like: wildcards do not match a leading '.') and no negative rule
// MatchesRelaxed() it (whole path, `*` crosses '/'). Parsing fails, naming
// the line, on a malformed pathspec, on a relative positive rule (CVMFS
// would accept it and never match anything with it) and on a negative rule
// whose pathspec equals a positive rule's (a contradiction, as in CVMFS).
//
// Thread safety: immutable after Parse.
#ifndef PUBLISHER_DIRTAB_H_
#define PUBLISHER_DIRTAB_H_

#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/status.h"
#include "publisher/pathspec.h"

namespace publisher {

class Dirtab {
 public:
  // `source` names the file in error messages.
  static cvmfs::Result<Dirtab> Parse(std::string_view text,
                                     std::string_view source = "/.cvmfsdirtab");

  // Whether directory `path` ("/a/b") should be a nested catalog root.
  bool IsMatching(std::string_view path) const;

  size_t positive_rules() const { return positive_.size(); }
  size_t negative_rules() const { return negative_.size(); }

 private:
  struct Rule {
    Pathspec spec;
    int line;
  };
  std::vector<Rule> positive_;
  std::vector<Rule> negative_;
};

}  // namespace publisher

#endif  // PUBLISHER_DIRTAB_H_
