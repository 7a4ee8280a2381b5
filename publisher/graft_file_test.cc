// Graft files as CVMFS's swissknife graft writes them and its publisher
// checks them.
#include "publisher/graft_file.h"

#include <gtest/gtest.h>

#include <string>

namespace publisher {
namespace {

const char kSha1[] = "2aae6c35c94fcfb415dbe95f408b9ce91ee846ed";
const char kSha1b[] = "7b502c3a1f48c8609ae212cdfb639dee39673f5e";

std::string Text(const std::string& extra) {
  return "size=100\nchecksum=" + std::string(kSha1) + "\n" + extra;
}

TEST(GraftFileTest, WholeFileAsGraftWritesIt) {
  auto g = ParseGraft(Text("compression=none\n"), "g");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(100u, g->size);
  EXPECT_EQ(kSha1, g->checksum.ToString());
  ASSERT_TRUE(g->compression.has_value());
  EXPECT_EQ(cvmfs::Compression::kNone, *g->compression);
  EXPECT_TRUE(g->chunks.empty());
}

TEST(GraftFileTest, CommentsBlanksAndUnknownKeysAreIgnored) {
  auto g = ParseGraft("# made by hand\n\n  size = 7 \nchecksum= " +
                          std::string(kSha1) + "-shake128x\nfuture=1\n",
                      "g");
  EXPECT_FALSE(g.ok()) << "a shake128 id with a wrong length";
  g = ParseGraft("# made by hand\n\n  size = 7 \nchecksum= " +
                     std::string(kSha1) + "\nfuture=1\n",
                 "g");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  EXPECT_EQ(7u, g->size);
  EXPECT_FALSE(g->compression.has_value());
}

TEST(GraftFileTest, ChunksSpanTheFileFromTheirOffsets) {
  auto g = ParseGraft(Text("chunk_offsets=0,60\nchunk_checksums=" +
                           std::string(kSha1) + "," + kSha1b + "\n"),
                      "g");
  ASSERT_TRUE(g.ok()) << g.status().ToString();
  ASSERT_EQ(2u, g->chunks.size());
  EXPECT_EQ(0u, g->chunks[0].offset);
  EXPECT_EQ(60u, g->chunks[0].size);
  EXPECT_EQ(60u, g->chunks[1].offset);
  EXPECT_EQ(40u, g->chunks[1].size);
  EXPECT_EQ(kSha1b, g->chunks[1].hash.ToString());
}

TEST(GraftFileTest, MalformedGraftsAreRefusedNamingTheFile) {
  const std::string two = std::string(kSha1) + "," + kSha1b;
  for (const std::string& text :
       {std::string("checksum=") + kSha1, std::string("size=1\n"),
        std::string("size=x\nchecksum=") + kSha1, Text("compression=lzma\n"),
        std::string("size=1\nchecksum=zz"),
        Text("chunk_offsets=0,60\nchunk_checksums=" + std::string(kSha1)),
        Text("chunk_offsets=10,60\nchunk_checksums=" + two),
        Text("chunk_offsets=0,0\nchunk_checksums=" + two),
        Text("chunk_offsets=0,100\nchunk_checksums=" + two),
        Text("no equals sign")}) {
    auto g = ParseGraft(text, "/x/.cvmfsgraft-f");
    ASSERT_FALSE(g.ok()) << text;
    EXPECT_NE(std::string::npos, g.status().message().find("/x/.cvmfsgraft-f"))
        << g.status().ToString();
  }
}

TEST(GraftFileTest, MarkersAreNamedByTheirPrefix) {
  EXPECT_TRUE(IsGraftMarker(".cvmfsgraft-data.root"));
  EXPECT_FALSE(IsGraftMarker("data.root"));
  EXPECT_FALSE(IsGraftMarker(".cvmfsgraft"));
}

}  // namespace
}  // namespace publisher
