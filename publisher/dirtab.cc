#include "publisher/dirtab.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

size_t SkipBlanks(std::string_view line, size_t pos) {
  while (pos < line.size() && (line[pos] == ' ' || line[pos] == '\t')) ++pos;
  return pos;
}

}  // namespace

Result<Dirtab> Dirtab::Parse(std::string_view text, std::string_view source) {
  Dirtab dirtab;
  int line_no = 0;
  size_t start = 0;
  while (start < text.size()) {
    size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(start, end - start);
    start = end + 1;
    ++line_no;
    const std::string where =
        std::string(source) + " line " + std::to_string(line_no);

    size_t pos = SkipBlanks(line, 0);
    if (pos == line.size() || line[pos] == '#') continue;
    const bool negative = line[pos] == '!';
    if (negative) pos = SkipBlanks(line, pos + 1);
    std::string_view spec_text = line.substr(pos);
    if (spec_text.empty()) continue;  // a lone '!' (CVMFS ignores it too)

    auto spec = Pathspec::Parse(spec_text);
    if (!spec.ok()) return spec.status().Annotate(where);
    if (!negative && !spec->absolute())
      return Status::InvalidArgument(
          where + ": rule '" + std::string(spec_text) +
          "' must be an absolute path (start with '/')");
    (negative ? dirtab.negative_ : dirtab.positive_)
        .push_back(Rule{std::move(*spec), line_no});
  }

  for (const Rule& n : dirtab.negative_) {
    for (const Rule& p : dirtab.positive_) {
      if (n.spec != p.spec) continue;
      return Status::InvalidArgument(
          std::string(source) + " line " + std::to_string(n.line) +
          ": rule '! " + n.spec.text() + "' contradicts rule '" +
          p.spec.text() + "' on line " + std::to_string(p.line));
    }
  }
  return dirtab;
}

bool Dirtab::IsMatching(std::string_view path) const {
  bool positive = false;
  for (const Rule& r : positive_) {
    if (r.spec.Matches(path)) {
      positive = true;
      break;
    }
  }
  if (!positive) return false;
  for (const Rule& r : negative_) {
    if (r.spec.MatchesRelaxed(path)) return false;
  }
  return true;
}

}  // namespace publisher
