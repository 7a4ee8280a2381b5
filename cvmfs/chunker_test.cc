#include "cvmfs/chunker.h"

#include <gtest/gtest.h>

#include <random>

#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_store.h"
#include "cvmfs/testing/test_env.h"

namespace cvmfs {
namespace {

// The spec, byte by byte, as slow and obvious as possible.
std::vector<uint64_t> ReferenceOffsets(const std::string& f, const ChunkingParams& p) {
  std::vector<uint64_t> cuts{0};
  if (f.size() <= p.min_size) return cuts;
  const uint32_t t = static_cast<uint32_t>(0xFFFFFFFFull / p.avg_size);
  uint64_t last = 0;
  for (;;) {
    uint32_t x = 0;
    uint64_t cut = 0;
    for (uint64_t q = last + p.min_size - 32; q < last + p.min_size && q < f.size(); ++q)
      x = (x << 1) ^ static_cast<uint8_t>(f[q]);
    for (uint64_t q = last + p.min_size; q < f.size() && q < last + p.max_size; ++q) {
      x = (x << 1) ^ static_cast<uint8_t>(f[q]);
      int64_t d = static_cast<int32_t>(x - 0x7FFFFFFFu);
      if ((d < 0 ? -d : d) < t) { cut = q; break; }
    }
    if (!cut && last + p.max_size < f.size()) cut = last + p.max_size;
    if (!cut) return cuts;
    cuts.push_back(cut);
    last = cut;
  }
}

std::string Lcg(size_t n, uint32_t seed) {
  std::string s(n, '\0');
  for (auto& c : s) {
    seed = seed * 1103515245u + 12345u;
    c = static_cast<char>(seed >> 16);
  }
  return s;
}

TEST(ChunkerTest, MatchesCvmfsCutsOfTheSha1Fixture) {
  std::string dir = testing::FixturesDir() +
                    "/sha1-zlib.example.org/srv/cvmfs/sha1-zlib.example.org/";
  LocalObjectStore store(dir);
  std::string file;
  for (const char* name : {"data/27/6b0345920137a6e9793509ac5282d707cb15cbP",
                           "data/72/3229595078c68d8bdaeaf369b50addcca077dcP"}) {
    auto bytes = store.Get(name);
    ASSERT_TRUE(bytes.ok());
    std::string raw;
    ASSERT_TRUE(Decompress(*bytes, &raw).ok());
    file += raw;
  }
  ASSERT_EQ(file.size(), 12582912u);
  EXPECT_EQ(ChunkOffsets(file, ChunkingParams{}), (std::vector<uint64_t>{0, 10146618}));
}

TEST(ChunkerTest, FastEqualsReferenceOnManyCuts) {
  for (uint32_t seed = 1; seed <= 5; ++seed) {
    ChunkingParams p{64, 128, 256};
    std::string f = Lcg(200000, seed);
    EXPECT_EQ(ChunkOffsets(f, p), ReferenceOffsets(f, p)) << "seed " << seed;
  }
}

TEST(ChunkerTest, HardCutAtMaxOnZeros) {
  ChunkingParams p{64, 128, 256};
  std::string zeros(1000, '\0');
  EXPECT_EQ(ChunkOffsets(zeros, p), (std::vector<uint64_t>{0, 256, 512, 768}));
  EXPECT_EQ(ChunkOffsets(zeros, p), ReferenceOffsets(zeros, p));
}

TEST(ChunkerTest, StreamingIsIndependentOfBlockSizes) {
  ChunkingParams p{64, 128, 256};
  std::string f = Lcg(100000, 42);
  std::mt19937 rng(7);
  std::vector<uint64_t> cuts{0};
  Xor32Chunker c(p);
  uint64_t off = 0, chunk_start = 0;
  while (off < f.size()) {
    size_t n = std::min<size_t>(1 + rng() % 300, f.size() - off);
    size_t used = 0;
    while (used < n) {
      size_t k = c.FindCut(reinterpret_cast<const uint8_t*>(f.data()) + off + used, n - used);
      used += k;
      if (c.AtCut()) {
        chunk_start = off + used;
        if (chunk_start < f.size()) cuts.push_back(chunk_start);
        c.Reset();
      }
    }
    off += n;
  }
  EXPECT_EQ(cuts, ReferenceOffsets(f, p));
}

TEST(ChunkerTest, RejectsBadParameters) {
  EXPECT_FALSE((ChunkingParams{16, 128, 256}).Validate().ok());
  EXPECT_FALSE((ChunkingParams{64, 64, 256}).Validate().ok());
  EXPECT_FALSE((ChunkingParams{64, 128, 128}).Validate().ok());
  EXPECT_TRUE(ChunkingParams{}.Validate().ok());
}

}  // namespace
}  // namespace cvmfs
