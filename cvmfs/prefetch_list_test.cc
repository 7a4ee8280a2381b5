// The prefetch list formats (doc/format-prefetch-list.md): round trips,
// escaping, and malformed input rejected with its line number.
#include "cvmfs/prefetch_list.h"

#include <gtest/gtest.h>

#include <random>

#include "cvmfs/catalog/writable_catalog.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

Digest HashOf(const std::string& s, HashAlgorithm algo = HashAlgorithm::kSha1) {
  return HashString(algo, s);
}

std::vector<PrefetchList> Sample() {
  PrefetchFile plain;
  plain.path = "/sw/bin/python3";
  plain.size = 14336;
  plain.hash = HashOf("python3");
  PrefetchFile raw;
  raw.path = "/sw/lib/with space/100%\nodd";
  raw.compression = Compression::kNone;
  raw.size = 0;
  raw.hash = HashOf("empty", HashAlgorithm::kRmd160);
  PrefetchFile chunked;
  chunked.path = "/sw/lib/libbig.so";
  chunked.size = 9437184;
  chunked.chunks = {{HashOf("c1"), 4718592},
                    {HashOf("c2", HashAlgorithm::kShake128), 4718592}};
  return {PrefetchList{"python", {plain, raw, chunked}},
          PrefetchList{"compile-1.0_x", {chunked, plain}}};
}

TEST(PrefetchListTest, ListSetRoundTrips) {
  const std::vector<PrefetchList> lists = Sample();
  const std::string text = SerializePrefetchLists(lists);
  EXPECT_EQ(text.substr(0, 23), "cvmfs-prefetch-lists 1\n");
  auto parsed = ParsePrefetchLists(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 2u);
  for (size_t i = 0; i < lists.size(); ++i) {
    EXPECT_EQ((*parsed)[i].name, lists[i].name);
    EXPECT_EQ((*parsed)[i].files, lists[i].files);
  }
  EXPECT_EQ((*parsed)[0].trigger(), "/sw/bin/python3");
  EXPECT_EQ((*parsed)[0].objects(), 4u);
  EXPECT_EQ((*parsed)[0].bytes(), 14336u + 9437184u);
  EXPECT_EQ(SerializePrefetchLists(*parsed), text);
}

TEST(PrefetchListTest, DocumentedExampleParses) {
  const std::string text =
      "cvmfs-prefetch-lists 1\n"
      "list python\n"
      "f 0b6e3c5f0d7b2b2f2c9e1d2a4b5c6d7e8f901234 zlib 14336 /sw/bin/python3\n"
      "f 9d1c8e2a0b4f6a1c3e5d7b9f2a4c6e8d0b1f3a5c none 2811 "
      "/sw/lib/python3.11/os.py\n"
      "c zlib 9437184 2 /sw/lib/libbig.so\n"
      "p 1a2b3c4d5e6f708192a3b4c5d6e7f8091a2b3c4d 4718592\n"
      "p 5e6f708192a3b4c5d6e7f8091a2b3c4d1a2b3c4d 4718592\n";
  auto parsed = ParsePrefetchLists(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  ASSERT_EQ(parsed->size(), 1u);
  const PrefetchList& l = (*parsed)[0];
  ASSERT_EQ(l.files.size(), 3u);
  EXPECT_EQ(l.files[1].compression, Compression::kNone);
  EXPECT_FALSE(l.files[2].hash.has_value());
  EXPECT_EQ(l.files[2].chunks.size(), 2u);
  EXPECT_EQ(SerializePrefetchLists(*parsed), text);
}

// Each malformed input names the line at fault.
TEST(PrefetchListTest, MalformedListSetsAreRejectedWithTheirLine) {
  const std::string h = "cvmfs-prefetch-lists 1\n";
  const std::string hash = HashOf("x").ToString();
  struct Case {
    std::string text;
    std::string where;
  } cases[] = {
      {"", "line 1"},
      {"cvmfs-prefetch-list 1\n", "line 1"},
      {"cvmfs-prefetch-lists x\n", "line 1"},
      {h + "f " + hash + " zlib 1 /a\n",
       "line 2: file before the first 'list'"},
      {h + "list a\nf " + hash + " zlib 1 /a\nlist a\nf " + hash +
           " zlib 1 /a\n",
       "line 4: duplicate list name"},
      {h + "list bad/name\n", "line 2"},
      {h + "list a\n", "line 2: list 'a' has no files"},
      {h + "list a\nlist b\nf " + hash + " zlib 1 /b\n",
       "line 3: list 'a' has no files"},
      {h + "list a\nf " + hash + " gzip 1 /a\n", "line 3: unknown compression"},
      {h + "list a\nf " + hash + " zlib -1 /a\n",
       "line 3: missing or malformed size"},
      {h + "list a\nf " + hash + " zlib 1 a\n", "line 3"},
      {h + "list a\nf " + hash + " zlib 1 /\n", "line 3"},
      {h + "list a\nf " + hash + " zlib 1\n", "line 3"},
      {h + "list a\nf " + hash.substr(1) + " zlib 1 /a\n", "line 3"},
      {h + "list a\nf " + HashOf("x", HashAlgorithm::kMd5).Hex() +
           " zlib 1 /a\n",
       "line 3"},
      {h + "list a\nf " + hash + " zlib 1 /a\nf " + hash + " zlib 2 /a\n",
       "line 4: duplicate path /a"},
      {h + "list a\nc zlib 2 2 /a\np " + hash + " 1\n",
       "line 4: /a announces 2 chunks"},
      {h + "list a\nc zlib 2 1 /a\np " + hash + " 1\np " + hash + " 1\n",
       "line 5: chunk line outside"},
      {h + "list a\nc zlib 2 0 /a\n",
       "line 3: missing or malformed chunk count"},
      {h + "list a\np " + hash + " 1\n", "line 3: chunk line outside"},
      {h + "list a\nf " + hash + " zlib 1 /a%zz\n",
       "line 3: malformed %-escape"},
      {h + "list a\nf " + hash + " zlib 1 /a\nx y\n",
       "line 4: unknown line type 'x'"},
      {h + "list a\nf " + hash + " zlib 1 /a\n\n", "line 4: empty line"},
      {h + "list a\nf " + hash + " zlib 1 /a", "line 3: missing final newline"},
  };
  for (const Case& c : cases) {
    auto parsed = ParsePrefetchLists(c.text);
    ASSERT_FALSE(parsed.ok()) << c.text;
    EXPECT_NE(parsed.status().message().find(c.where), std::string::npos)
        << "input:\n"
        << c.text << "\nerror: " << parsed.status().ToString();
  }
}

TEST(PrefetchListTest, OtherVersionsAreNotSupported) {
  auto parsed = ParsePrefetchLists("cvmfs-prefetch-lists 2\nanything\n");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kNotSupported);
}

TEST(PrefetchListTest, EscapingRoundTripsEveryByte) {
  const unsigned seed = std::random_device{}();
  std::mt19937 rng(seed);
  for (int round = 0; round < 200; ++round) {
    std::string path = "/";
    const int n = static_cast<int>(rng() % 40);
    for (int i = 0; i < n; ++i) path += static_cast<char>(1 + rng() % 255);
    const std::string escaped = EscapeListPath(path);
    ASSERT_EQ(escaped.find('\n'), std::string::npos) << "seed " << seed;
    auto back = UnescapeListPath(escaped);
    ASSERT_TRUE(back.ok()) << "seed " << seed << ": "
                           << back.status().ToString();
    ASSERT_EQ(*back, path) << "seed " << seed;
  }
  EXPECT_EQ(EscapeListPath("/a%b\tc d"), "/a%25b%09c d");
  EXPECT_FALSE(UnescapeListPath("/a%41").ok());  // 'A' needs no escape
  EXPECT_FALSE(UnescapeListPath("/a%0a").ok());  // lowercase
  EXPECT_FALSE(UnescapeListPath("/a%2").ok());
  EXPECT_FALSE(UnescapeListPath("/a\tb").ok());
}

TEST(PrefetchListTest, RecordedPathsRoundTrip) {
  const std::vector<std::string> paths = {"/a", "/dir/with space", "/odd\nname",
                                          "/100%"};
  const std::string text =
      FormatRecordedPaths(paths, "recorded on test.org revision 3");
  EXPECT_EQ(text.substr(0, 2), "# ");
  auto parsed = ParseRecordedPaths(text);
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, paths);
}

TEST(PrefetchListTest, RecordedPathsSkipCommentsBlanksAndDuplicates) {
  auto parsed = ParseRecordedPaths("# c\n\n/b\r\n/a\n/b\n/c");
  ASSERT_TRUE(parsed.ok()) << parsed.status().ToString();
  EXPECT_EQ(*parsed, (std::vector<std::string>{"/b", "/a", "/c"}));
}

TEST(PrefetchListTest, RecordedPathsRejectRelativePathsWithLineNumber) {
  auto parsed = ParseRecordedPaths("/a\n# fine\nrelative/path\n");
  ASSERT_FALSE(parsed.ok());
  EXPECT_EQ(parsed.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(parsed.status().message().find("line 3"), std::string::npos)
      << parsed.status().ToString();
  EXPECT_NE(parsed.status().message().find("relative/path"), std::string::npos);
  EXPECT_FALSE(ParseRecordedPaths("/a%G0\n").ok());
}

TEST(PrefetchListTest, NamesAreValidated) {
  EXPECT_TRUE(ValidatePrefetchListName("default").ok());
  EXPECT_TRUE(ValidatePrefetchListName("gcc-13.2_x86").ok());
  EXPECT_FALSE(ValidatePrefetchListName("").ok());
  EXPECT_FALSE(ValidatePrefetchListName("a b").ok());
  EXPECT_FALSE(ValidatePrefetchListName(std::string(65, 'a')).ok());
}

TEST(PrefetchListTest, RootCatalogPropertyNamesTheObject) {
  testing::TempDir tmp;
  DirectoryEntry root;
  root.mode = 040755;
  auto catalog = WritableCatalog::Create(tmp.Sub("c.db"), "", root, false);
  ASSERT_TRUE(catalog.ok()) << catalog.status().ToString();
  auto none = PrefetchListsObjectOf(**catalog);
  ASSERT_TRUE(none.ok());
  EXPECT_FALSE(none->has_value());

  const Digest d = HashOf("lists", HashAlgorithm::kRmd160);
  ASSERT_TRUE(
      (*catalog)->SetProperty(kPrefetchListsProperty, d.ToString()).ok());
  auto some = PrefetchListsObjectOf(**catalog);
  ASSERT_TRUE(some.ok()) << some.status().ToString();
  EXPECT_EQ(some->value(), d);

  ASSERT_TRUE(
      (*catalog)->SetProperty(kPrefetchListsProperty, "not-a-hash").ok());
  auto bad = PrefetchListsObjectOf(**catalog);
  ASSERT_FALSE(bad.ok());
  EXPECT_NE(bad.status().message().find("prefetch_lists"), std::string::npos);
}

}  // namespace
}  // namespace cvmfs
