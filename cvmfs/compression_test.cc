#include "cvmfs/compression.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>

namespace cvmfs {
namespace {

std::string RandomText(size_t n, unsigned seed) {
  std::mt19937 rng(seed);
  std::string s(n, ' ');
  for (auto& c : s) c = "abcdefgh \n"[rng() % 10];
  return s;
}

TEST(CompressionTest, LibdeflateOutputIsZlib) {
  std::string in = RandomText(1 << 20, 1), z, out;
  Compressor c;
  c.Compress(in, &z);
  ASSERT_TRUE(Decompress(z, &out).ok());
  EXPECT_EQ(out, in);
}

TEST(CompressionTest, EmptyInput) {
  std::string z, out;
  Compressor c;
  c.Compress("", &z);
  EXPECT_TRUE(Decompress(z, &out).ok());
  EXPECT_TRUE(out.empty());
}

TEST(CompressionTest, ZlibMatchesCvmfsObject) {
  // CVMFS stores "New CernVM-FS repository for ..." as zlib level 6.
  std::string z = ZlibCompress("abc");
  EXPECT_EQ(static_cast<uint8_t>(z[0]), 0x78);
  EXPECT_EQ(static_cast<uint8_t>(z[1]), 0x9c);
}

TEST(CompressionTest, DetectsTruncationAndTrailingData) {
  std::string in = RandomText(100000, 2), z, out;
  Compressor c;
  c.Compress(in, &z);
  EXPECT_TRUE(Decompress(z.substr(0, z.size() - 10), &out).IsCorruption());
  EXPECT_TRUE(Decompress(z + "junk", &out).IsCorruption());
  std::string flipped = z;
  flipped[z.size() / 2] ^= 0x55;
  EXPECT_FALSE(Decompress(flipped, &out).ok());
}

// WholeInflater: the same bytes as the streaming inflate, output grown past
// a low guess, the bound enforced, and truncated, trailing or flipped
// streams refused; one inflater serves many streams.
TEST(WholeInflaterTest, InflatesWithinItsBoundAndRefusesBadStreams) {
  WholeInflater w;
  for (size_t n : {size_t{0}, size_t{1}, size_t{5000}, size_t{1} << 20}) {
    const std::string in = RandomText(n, 7);
    const std::string z = ZlibCompress(in);
    auto out = w.Inflate(z, n);  // no hint: grows from 4x the input
    ASSERT_TRUE(out.ok()) << n << ": " << out.status().ToString();
    EXPECT_EQ(in, std::string(*out));
    auto hinted = w.Inflate(z, n, n);
    ASSERT_TRUE(hinted.ok());
    EXPECT_EQ(in, std::string(*hinted));
    if (n > 0) {
      EXPECT_TRUE(w.Inflate(z, n - 1).status().IsCorruption()) << n;
    }
  }
  const std::string in = RandomText(100000, 3);
  const std::string z = ZlibCompress(in);
  EXPECT_TRUE(
      w.Inflate(z.substr(0, z.size() - 10), 1 << 20).status().IsCorruption());
  EXPECT_TRUE(w.Inflate(z + "junk", 1 << 20).status().IsCorruption());
  std::string flipped = z;
  flipped[z.size() / 2] ^= 0x55;
  EXPECT_FALSE(w.Inflate(flipped, 1 << 20).ok());
  EXPECT_EQ(in, std::string(*w.Inflate(z, 1 << 20)));
}

TEST(CompressionTest, StreamingInSmallPieces) {
  std::string in = RandomText(300000, 3), z, out;
  Compressor c;
  c.Compress(in, &z);
  Inflater inf;
  for (size_t i = 0; i < z.size(); i += 7) {
    ASSERT_TRUE(inf.Feed(z.data() + i, std::min<size_t>(7, z.size() - i),
                         [&](const char* d, size_t n) {
                           out.append(d, n);
                           return Status::Ok();
                         })
                    .ok());
  }
  EXPECT_TRUE(inf.Finish().ok());
  EXPECT_EQ(out, in);
}

}  // namespace
}  // namespace cvmfs

namespace cvmfs {
namespace {

// The streaming deflater gives zlib's own stream, fed in any pieces (CVMFS
// re-hashes cached objects this way: user.lhash).
TEST(DeflaterTest, StreamEqualsZlibCompress) {
  std::string input;
  for (int i = 0; i < 200000; ++i)
    input += static_cast<char>('a' + i % 7 * i % 23);
  for (size_t piece : {size_t{1} << 20, size_t{4096}, size_t{7}}) {
    Deflater d;
    std::string out;
    const Deflater::Sink sink = [&](const char* p, size_t n) {
      out.append(p, n);
      return Status::Ok();
    };
    for (size_t off = 0; off < input.size(); off += piece)
      ASSERT_TRUE(
          d.Feed(input.data() + off, std::min(piece, input.size() - off), sink)
              .ok());
    ASSERT_TRUE(d.Finish(sink).ok());
    EXPECT_EQ(ZlibCompress(input), out) << piece;
  }
}

}  // namespace
}  // namespace cvmfs
