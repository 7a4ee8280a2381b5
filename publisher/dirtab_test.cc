// Pathspec and Dirtab: parsing and matching with CVMFS's semantics.
#include "publisher/dirtab.h"

#include <gtest/gtest.h>

#include <random>
#include <regex>

#include "publisher/pathspec.h"

namespace publisher {
namespace {

Pathspec Spec(const std::string& text) {
  auto spec = Pathspec::Parse(text);
  EXPECT_TRUE(spec.ok()) << text << ": " << spec.status().ToString();
  return *spec;
}

Dirtab Tab(const std::string& text) {
  auto tab = Dirtab::Parse(text);
  EXPECT_TRUE(tab.ok()) << tab.status().ToString();
  return tab.ok() ? *tab : *Dirtab::Parse("");  // empty: matches nothing
}

TEST(PathspecTest, LiteralsMatchPerComponent) {
  Pathspec s = Spec("/software/releases");
  EXPECT_TRUE(s.Matches("/software/releases"));
  EXPECT_TRUE(s.Matches("/software/releases/"));  // trailing slash allowed
  EXPECT_FALSE(s.Matches("/software"));
  EXPECT_FALSE(s.Matches("/software/releases/1.0"));
  EXPECT_FALSE(s.Matches("/software/release"));
  EXPECT_FALSE(s.Matches("/software/releasesX"));
  EXPECT_FALSE(s.Matches("software/releases"));  // relative query
  EXPECT_TRUE(Spec("/a//b/").Matches("/a/b"));
}

TEST(PathspecTest, WildcardsStayInsideOneComponent) {
  Pathspec star = Spec("/sw/*");
  EXPECT_TRUE(star.Matches("/sw/gcc"));
  EXPECT_TRUE(star.Matches("/sw/g.c.c"));
  EXPECT_FALSE(star.Matches("/sw/gcc/12"));
  EXPECT_FALSE(star.Matches("/sw"));
  Pathspec mid = Spec("/sw/*/v*");
  EXPECT_TRUE(mid.Matches("/sw/gcc/v12"));
  EXPECT_TRUE(mid.Matches("/sw/gcc/v"));
  EXPECT_FALSE(mid.Matches("/sw/gcc/12"));
  EXPECT_FALSE(mid.Matches("/sw/gcc/x/v12"));
  Pathspec q = Spec("/sw/v?.?");
  EXPECT_TRUE(q.Matches("/sw/v1.2"));
  EXPECT_FALSE(q.Matches("/sw/v1.23"));
  EXPECT_FALSE(q.Matches("/sw/v1/2"));
  Pathspec multi = Spec("/a*b*c");
  EXPECT_TRUE(multi.Matches("/abc"));
  EXPECT_TRUE(multi.Matches("/aXbYbZc"));
  EXPECT_FALSE(multi.Matches("/aXbYcZ"));
}

TEST(PathspecTest, WildcardsDoNotMatchALeadingDot) {
  EXPECT_FALSE(Spec("/sw/*").Matches("/sw/.git"));
  EXPECT_FALSE(Spec("/sw/?git").Matches("/sw/.git"));
  EXPECT_TRUE(Spec("/sw/.*").Matches("/sw/.git"));
  EXPECT_TRUE(Spec("/sw/.git").Matches("/sw/.git"));
  EXPECT_TRUE(Spec("/sw/*.d").Matches("/sw/conf.d"));  // only a leading dot
  EXPECT_FALSE(Spec("/*/x").Matches("/.hidden/x"));
}

TEST(PathspecTest, EscapesMakeWildcardsLiteral) {
  Pathspec s = Spec("/sw/a\\*b");
  EXPECT_TRUE(s.Matches("/sw/a*b"));
  EXPECT_FALSE(s.Matches("/sw/aXb"));
  EXPECT_TRUE(Spec("/sw/what\\?").Matches("/sw/what?"));
  EXPECT_FALSE(Spec("/sw/what\\?").Matches("/sw/whatX"));
  EXPECT_TRUE(Spec("/sw/back\\\\slash").Matches("/sw/back\\slash"));
  EXPECT_EQ(Spec("/a\\*").text(), "/a\\*");
}

TEST(PathspecTest, MalformedSpecsAreRejected) {
  for (const char* bad : {"/", "//", "", "/sw/a\\b", "/sw/a\\"}) {
    auto spec = Pathspec::Parse(bad);
    EXPECT_FALSE(spec.ok()) << bad;
    if (!spec.ok()) {
      EXPECT_NE(spec.status().ToString().find(std::string("'") + bad + "'"),
                std::string::npos)
          << spec.status().ToString();
    }
  }
}

TEST(PathspecTest, RelaxedStarCrossesSlashes) {
  Pathspec git = Spec("*.git");
  EXPECT_FALSE(git.Matches("/sw/x.git"));  // relative: never a strict match
  EXPECT_TRUE(git.MatchesRelaxed("/sw/x.git"));
  EXPECT_TRUE(git.MatchesRelaxed("/sw/deep/er/.git"));  // dots not special
  EXPECT_TRUE(git.MatchesRelaxed("/sw/x.git/"));
  EXPECT_FALSE(git.MatchesRelaxed("/sw/x.git/objects"));
  EXPECT_FALSE(git.MatchesRelaxed("/sw/x.gitx"));
  Pathspec abs = Spec("/software/tmp");
  EXPECT_TRUE(abs.MatchesRelaxed("/software/tmp"));
  EXPECT_FALSE(abs.MatchesRelaxed("/software/tmp/a"));
  EXPECT_FALSE(abs.MatchesRelaxed("/x/software/tmp"));
  Pathspec mid = Spec("/sw/*/build");
  EXPECT_TRUE(mid.MatchesRelaxed("/sw/a/b/c/build"));
  EXPECT_FALSE(mid.Matches("/sw/a/b/c/build"));
  EXPECT_FALSE(Spec("/sw/?").MatchesRelaxed("/sw/a/b"));  // ? never is '/'
  EXPECT_FALSE(Spec("tmp").MatchesRelaxed("/tmp"));  // anchored at the start
}

TEST(PathspecTest, EqualityIgnoresRedundantSlashes) {
  EXPECT_EQ(Spec("/a/b"), Spec("/a//b/"));
  EXPECT_NE(Spec("/a/b"), Spec("a/b"));
  EXPECT_NE(Spec("/a/*"), Spec("/a/\\*"));
  EXPECT_NE(Spec("/a/?"), Spec("/a/*"));
}

// CVMFS matches with POSIX regular expressions built from the pathspec
// (pathspec.cc, GenerateRegularExpression); the model rebuilds them.
std::string CvmfsRegex(const std::string& spec, bool relaxed) {
  std::string re = "^";
  if (spec[0] == '/') re += "/";
  bool first = true;
  size_t pos = 0;
  while (pos < spec.size()) {
    size_t slash = spec.find('/', pos);
    if (slash == std::string::npos) slash = spec.size();
    if (slash > pos) {
      if (!first) re += "/";
      first = false;
      for (char c : spec.substr(pos, slash - pos)) {
        if (c == '*')
          re += relaxed ? ".*" : "[^/]*";
        else if (c == '?')
          re += "[^/]";
        else if (c == '.')
          re += "\\.";
        else
          re += c;
      }
    }
    pos = slash + 1;
  }
  return re + "/?$";
}

bool HasHiddenComponent(const std::string& path) {
  return path.find("/.") != std::string::npos;
}

TEST(PathspecTest, AgreesWithCvmfsRegularExpressionsOnRandomInput) {
  const unsigned seed = std::random_device{}();
  SCOPED_TRACE("seed " + std::to_string(seed));
  std::mt19937 rng(seed);
  auto pick = [&](const std::string& alphabet, int max_len) {
    std::string s;
    int len = 1 + static_cast<int>(rng() % max_len);
    for (int i = 0; i < len; ++i) s += alphabet[rng() % alphabet.size()];
    return s;
  };
  int compared = 0;
  for (int round = 0; round < 3000; ++round) {
    std::string text = (rng() % 2 ? "/" : "") + pick("ab.*?/", 8);
    auto spec = Pathspec::Parse(text);
    if (!spec.ok()) continue;  // "/" or "//": no element
    std::string path = "/" + pick("ab./", 10);
    // Publisher paths are normalized: no "//", no trailing '/'. (With a
    // trailing '/', CVMFS's regex can read "/a/" as "/a" plus an empty
    // component, which is no directory.)
    if (path.find("//") != std::string::npos || path.back() == '/') continue;
    std::regex relaxed(CvmfsRegex(text, true), std::regex::extended);
    EXPECT_EQ(spec->MatchesRelaxed(path), std::regex_search(path, relaxed))
        << text << " vs " << path;
    if (spec->absolute() && !HasHiddenComponent(path)) {
      std::regex strict(CvmfsRegex(text, false), std::regex::extended);
      EXPECT_EQ(spec->Matches(path), std::regex_search(path, strict))
          << text << " vs " << path;
    }
    ++compared;
  }
  EXPECT_GT(compared, 1000);
}

TEST(DirtabTest, PositiveAndNegativeRules) {
  Dirtab tab =
      Tab("# software releases\n"
          "/software/*\n"
          "  /software/*/v*   \n"
          "\n"
          "! *.git\n"
          "!/software/tmp\n"
          "   # indented comment\n");
  EXPECT_EQ(tab.positive_rules(), 2u);
  EXPECT_EQ(tab.negative_rules(), 2u);
  EXPECT_TRUE(tab.IsMatching("/software/gcc"));
  EXPECT_FALSE(tab.IsMatching("/software"));
  EXPECT_FALSE(tab.IsMatching("/software/tmp"));
  EXPECT_FALSE(tab.IsMatching("/software/repo.git"));
  EXPECT_FALSE(tab.IsMatching("/software/.hidden"));
  EXPECT_FALSE(tab.IsMatching("/other/gcc"));
  // Trailing blanks are part of the spec, as in CVMFS.
  EXPECT_FALSE(tab.IsMatching("/software/gcc/v12"));
  EXPECT_TRUE(tab.IsMatching("/software/gcc/v12   "));
}

TEST(DirtabTest, NegativeRuleOnlyExcludesWhatItMatches) {
  Dirtab tab = Tab("/sw/*\n/sw/*/*\n! /sw/tmp\n");
  EXPECT_FALSE(tab.IsMatching("/sw/tmp"));
  EXPECT_TRUE(tab.IsMatching("/sw/tmp/a"));  // not a prefix rule
  EXPECT_TRUE(tab.IsMatching("/sw/tmpx"));
}

TEST(DirtabTest, EmptyDirtabMatchesNothing) {
  Dirtab tab = Tab("# nothing\n\n   \n!\n");
  EXPECT_EQ(tab.positive_rules(), 0u);
  EXPECT_FALSE(tab.IsMatching("/a"));
}

TEST(DirtabTest, ContradictionIsAnErrorNamingTheLines) {
  auto tab = Dirtab::Parse("/a/*\n/b\n# c\n! /b/\n", "/.cvmfsdirtab");
  ASSERT_FALSE(tab.ok());
  const std::string msg = tab.status().ToString();
  EXPECT_NE(msg.find("/.cvmfsdirtab line 4"), std::string::npos) << msg;
  EXPECT_NE(msg.find("line 2"), std::string::npos) << msg;
  EXPECT_NE(msg.find("contradicts"), std::string::npos) << msg;
}

TEST(DirtabTest, MalformedLinesAreErrorsNamingTheLine) {
  auto bad_escape = Dirtab::Parse("/a\n/b/c\\d\n");
  ASSERT_FALSE(bad_escape.ok());
  EXPECT_NE(bad_escape.status().ToString().find("line 2"), std::string::npos);
  auto relative = Dirtab::Parse("/a\n\nsoftware/*\n");
  ASSERT_FALSE(relative.ok());
  EXPECT_NE(relative.status().ToString().find("line 3"), std::string::npos);
  EXPECT_NE(relative.status().ToString().find("absolute"), std::string::npos);
  EXPECT_FALSE(Dirtab::Parse("! /\n").ok());
}

}  // namespace
}  // namespace publisher
