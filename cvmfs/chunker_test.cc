// Xor32Chunker against (a) files that CVMFS 2.12 itself chunked, in the
// fixture repositories, and (b) a slow reference that follows CVMFS's
// Xor32Detector literally, on pseudo-random and on adversarial inputs, fed
// whole and in random pieces.
#include "cvmfs/chunker.h"

#include <gtest/gtest.h>
#include <openssl/evp.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_name.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

// ---------------------------------------------------------------------------
// Reference: byte by byte, as CVMFS's Xor32Detector computes it.

// abs(int32(x) - 0x7FFFFFFF) < T with CVMFS's int32 threshold, every step
// wrapped to 32 bits (CVMFS is built with -fwrapv), so abs(INT32_MIN) stays
// INT32_MIN.
bool RefHit(uint32_t x, uint64_t avg) {
  const int32_t threshold = static_cast<int32_t>(0xFFFFFFFFull / avg);
  const int64_t diff =
      static_cast<int64_t>(static_cast<int32_t>(x)) - 0x7FFFFFFF;
  const int32_t diff32 = static_cast<int32_t>(static_cast<uint32_t>(diff));
  const int64_t abs_exact = diff32 < 0 ? -static_cast<int64_t>(diff32) : diff32;
  const int32_t abs32 = static_cast<int32_t>(static_cast<uint32_t>(abs_exact));
  return abs32 < threshold;
}

std::vector<uint64_t> RefOffsets(const std::string& d,
                                 const ChunkingParams& p) {
  std::vector<uint64_t> out{0};
  uint64_t last = 0;
  for (;;) {
    uint32_t x = 0;  // reset at every cut
    bool found = false;
    uint64_t cut = 0;
    const uint64_t end = std::min<uint64_t>(d.size(), last + p.max_size);
    for (uint64_t q = last + p.min_size - 32; q < end; ++q) {
      x = (x << 1) ^ static_cast<uint8_t>(d[q]);
      if (q >= last + p.min_size && RefHit(x, p.avg_size)) {
        cut = q;  // byte q starts the next chunk
        found = true;
        break;
      }
    }
    if (!found) {
      if (last + p.max_size >= d.size()) break;  // a cut at EOF is no cut
      cut = last + p.max_size;
    }
    out.push_back(cut);
    last = cut;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Inputs.

// Knuth's MMIX LCG; the high byte of each step.
std::string LcgBytes(size_t n, uint64_t seed) {
  std::string s(n, '\0');
  uint64_t state = seed;
  for (size_t i = 0; i < n; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    s[i] = static_cast<char>(state >> 56);
  }
  return s;
}

// 32 bytes of 0/1 that put the rolling state at `v` after the last of them
// (bit i of v is the byte 31 - i places back).
std::string Plant(uint32_t v) {
  std::string s(32, '\0');
  for (int i = 0; i < 32; ++i) s[31 - i] = static_cast<char>((v >> i) & 1);
  return s;
}

// Runs that keep the state near and inside the hit window: states planted
// around the centre and at 0xFFFFFFFF, runs of 0x00 / 0x01 / 0x20 / 0xFF, and
// random stretches.
std::string HitRichBytes(size_t n, uint64_t avg, uint32_t seed) {
  std::mt19937 rng(seed);
  const int64_t t = static_cast<int64_t>(0xFFFFFFFFull / avg);
  std::string s;
  while (s.size() < n) {
    switch (rng() % 6) {
      case 0: {
        int64_t off = static_cast<int64_t>(rng() % (2 * t + 5)) - t - 2;
        s += Plant(static_cast<uint32_t>(kXor32Center + off));
        break;
      }
      case 1:
        s += Plant(0xFFFFFFFFu - rng() % 3);
        break;
      case 2:
        s.append(1 + rng() % 80, "\x00\x01\x20\xff"[rng() % 4]);
        break;
      default:
        s += LcgBytes(1 + rng() % 300, rng());
    }
  }
  s.resize(n);
  return s;
}

// ---------------------------------------------------------------------------
// Drivers.

// Feeds `d` in pieces of random size (1..max_piece) and records the cuts.
std::vector<uint64_t> StreamOffsets(const std::string& d,
                                    const ChunkingParams& p, std::mt19937* rng,
                                    size_t max_piece) {
  std::vector<uint64_t> out{0};
  Xor32Chunker c(p);
  const auto* data = reinterpret_cast<const uint8_t*>(d.data());
  uint64_t off = 0;
  while (off < d.size()) {
    size_t piece = std::min<size_t>(1 + (*rng)() % max_piece, d.size() - off);
    while (piece > 0) {
      size_t n = c.FindCut(data + off, piece);
      EXPECT_EQ(c.AtCut(), n < piece);
      off += n;
      piece -= n;
      if (c.AtCut()) out.push_back(off);
    }
  }
  return out;
}

std::string Sha256Hex(const std::string& data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return ToHex(md, len);
}

std::string ReadOrDie(const std::string& path) {
  auto r = ReadFile(path);
  EXPECT_TRUE(r.ok()) << r.status().ToString();
  return r.ok() ? *r : std::string();
}

ChunkingParams Params(uint64_t min, uint64_t avg, uint64_t max) {
  ChunkingParams p;
  p.min_size = min;
  p.avg_size = avg;
  p.max_size = max;
  return p;
}

// ---------------------------------------------------------------------------

TEST(ChunkingParamsTest, Validate) {
  EXPECT_TRUE(ChunkingParams().Validate().ok());
  EXPECT_EQ(ChunkingParams().min_size, 4u << 20);
  EXPECT_EQ(ChunkingParams().avg_size, 8u << 20);
  EXPECT_EQ(ChunkingParams().max_size, 16u << 20);
  EXPECT_TRUE(Params(32, 33, 34).Validate().ok());
  EXPECT_FALSE(Params(31, 64, 128).Validate().ok());
  EXPECT_FALSE(Params(64, 64, 128).Validate().ok());
  EXPECT_FALSE(Params(64, 128, 128).Validate().ok());
  EXPECT_FALSE(Params(128, 64, 256).Validate().ok());
  EXPECT_EQ(Params(0, 0, 0).Validate().code(), Status::Code::kInvalidArgument);
}

TEST(ChunkingParamsTest, ShouldChunk) {
  ChunkingParams p;
  EXPECT_FALSE(ShouldChunk(0, p));
  EXPECT_FALSE(ShouldChunk(4 << 20, p));
  EXPECT_TRUE(ShouldChunk((4 << 20) + 1, p));
}

// /large/big.dat of sha1-zlib was published by CVMFS 2.12 as two chunks.
TEST(Xor32ChunkerTest, KnownAnswerSha1ZlibBigDat) {
  const std::string data =
      testing::FixturesDir() +
      "/sha1-zlib.example.org/srv/cvmfs/sha1-zlib.example.org/";
  const char* kChunks[] = {"276b0345920137a6e9793509ac5282d707cb15cb",
                           "723229595078c68d8bdaeaf369b50addcca077dc"};
  std::string file;
  std::vector<uint64_t> sizes;
  for (const char* hex : kChunks) {
    Digest digest = *Digest::Parse(hex);
    std::string stored =
        ReadOrDie(data + ObjectPath(digest, ObjectSuffix::kPartial));
    ASSERT_EQ(HashString(HashAlgorithm::kSha1, stored), digest);
    std::string chunk;
    ASSERT_TRUE(Decompress(stored, &chunk).ok());
    sizes.push_back(chunk.size());
    file += chunk;
  }
  ASSERT_EQ(sizes, (std::vector<uint64_t>{10146618, 2436294}));
  ASSERT_EQ(file.size(), 12582912u);
  ASSERT_EQ(Sha256Hex(file),
            "4441993dec428bf85d284b2f8646a846e0972cac661caf09c4cf3dd44522402e");

  const ChunkingParams p;  // the defaults: 4/8/16 MiB
  ASSERT_TRUE(ShouldChunk(file.size(), p));
  const std::vector<uint64_t> expected{0, 10146618};
  EXPECT_EQ(ChunkOffsets(file, p), expected);
  EXPECT_EQ(RefOffsets(file, p), expected);
  std::mt19937 rng(1);
  // 16 KiB: the blocks CVMFS feeds; 1 MiB: the blocks our publisher feeds.
  EXPECT_EQ(StreamOffsets(file, p, &rng, 16 << 10), expected);
  EXPECT_EQ(StreamOffsets(file, p, &rng, 1 << 20), expected);
  EXPECT_EQ(StreamOffsets(file, p, &rng, 7), expected);
}

// /large/big.dat of shake128-none (6 MiB, > min) has no cut point: its
// catalog row has flags 2564 (regular file, SHAKE-128, no compression, *not*
// chunked), no rows in `chunks`, and names the bulk object below.
TEST(Xor32ChunkerTest, KnownAnswerShake128NoneBigDat) {
  const std::string path =
      testing::FixturesDir() +
      "/shake128-none.example.org/srv/cvmfs/shake128-none.example.org/";
  Digest digest =
      *Digest::Parse("45dfc9dfbeac5a34d50ea7298a5db1925e87dbe7-shake128");
  std::string file = ReadOrDie(path + ObjectPath(digest, ObjectSuffix::kNone));
  ASSERT_EQ(HashString(HashAlgorithm::kShake128, file), digest);  // stored raw
  ASSERT_EQ(file.size(), 6291456u);
  ASSERT_EQ(Sha256Hex(file),
            "bb830349fa61a878d39ccb1f4a5139a9d01277c20d3f748dd90347e422078c9c");

  const ChunkingParams p;
  ASSERT_TRUE(ShouldChunk(file.size(), p));
  EXPECT_EQ(ChunkOffsets(file, p), std::vector<uint64_t>{0});
  EXPECT_EQ(RefOffsets(file, p), std::vector<uint64_t>{0});
  std::mt19937 rng(2);
  EXPECT_EQ(StreamOffsets(file, p, &rng, 16 << 10), std::vector<uint64_t>{0});
}

TEST(Xor32ChunkerTest, MatchesReferenceOnPseudoRandomInput) {
  struct Case {
    ChunkingParams params;
    size_t size;
    size_t min_cuts;
  };
  const Case cases[] = {
      {Params(64, 128, 256), 1 << 20, 3000},  // cuts everywhere
      {Params(32, 33, 34), 100000, 2900},     // the smallest legal sizes
      {Params(100, 1000, 5000), 4 << 20, 3000},
      {Params(4096, 60000, 1 << 20), 16 << 20, 200},
      {Params(2048, 131072, 1 << 20), 16 << 20, 50},  // T <= 2^16: 8-byte steps
      {Params(1 << 16, 1 << 18, 1 << 20), 32 << 20, 50},
      {ChunkingParams(), 80 << 20, 5},
  };
  uint64_t seed = 42;
  for (const Case& c : cases) {
    SCOPED_TRACE("min " + std::to_string(c.params.min_size) + " avg " +
                 std::to_string(c.params.avg_size) + " max " +
                 std::to_string(c.params.max_size) + " seed " +
                 std::to_string(seed));
    const std::string d = LcgBytes(c.size, seed++);
    const std::vector<uint64_t> expected = RefOffsets(d, c.params);
    EXPECT_GE(expected.size(), c.min_cuts);
    EXPECT_EQ(ChunkOffsets(d, c.params), expected);
    std::mt19937 rng(static_cast<uint32_t>(seed));
    EXPECT_EQ(StreamOffsets(d, c.params, &rng, 3 * c.params.max_size),
              expected);
    EXPECT_EQ(StreamOffsets(d, c.params, &rng, 100), expected);
    for (size_t k = 1; k < expected.size(); ++k) {
      EXPECT_GE(expected[k] - expected[k - 1], c.params.min_size);
      EXPECT_LE(expected[k] - expected[k - 1], c.params.max_size);
    }
  }
}

// Pinned cut points of the LCG input (computed once with an independent
// Python transcription of the rule), so that a change of the rule shows up
// even if the reference above were changed along with the implementation.
TEST(Xor32ChunkerTest, PinnedSyntheticAnswers) {
  const std::string d = LcgBytes(4096, 7);
  EXPECT_EQ(ChunkOffsets(d, Params(64, 128, 256)),
            (std::vector<uint64_t>{0,    153,  262,  357,  487,  594,  677,
                                   795,  932,  1059, 1178, 1405, 1636, 1708,
                                   1890, 2037, 2112, 2189, 2283, 2431, 2687,
                                   2793, 2907, 2989, 3108, 3307, 3386, 3514,
                                   3589, 3682, 3779, 3880, 3982, 4066}));
  const std::string big = LcgBytes(48 << 20, 8);
  EXPECT_EQ(ChunkOffsets(big, ChunkingParams()),
            (std::vector<uint64_t>{0, 6580291, 14580344, 22186354, 35777992,
                                   46527205}));
}

TEST(Xor32ChunkerTest, MatchesReferenceOnAdversarialInput) {
  const ChunkingParams params[] = {
      Params(64, 128, 256),
      Params(40, 1000, 3000),
      Params(64, 131072, 131073),  // narrow window (T <= 2^16), hard cuts
      Params(64, 65536, 140000),   // T == 2^16 - 1: the widest narrow window
      Params(64, 65535, 140000),   // T == 2^16 + 1: not narrow
      Params(200, 1 << 20, (1 << 20) + 1000),
      Params(32, 1ull << 33, 1ull << 34),  // T == 0: only 0xFFFFFFFF hits
  };
  uint32_t seed = 1;
  for (const ChunkingParams& p : params) {
    for (int round = 0; round < 3; ++round, ++seed) {
      SCOPED_TRACE("avg " + std::to_string(p.avg_size) + " seed " +
                   std::to_string(seed));
      const std::string d = HitRichBytes(1 << 20, p.avg_size, seed);
      const std::vector<uint64_t> expected = RefOffsets(d, p);
      EXPECT_GE(expected.size(), 20u);
      EXPECT_EQ(ChunkOffsets(d, p), expected);
      std::mt19937 rng(seed);
      EXPECT_EQ(StreamOffsets(d, p, &rng, 50), expected);
      EXPECT_EQ(StreamOffsets(d, p, &rng, 5000), expected);
    }
  }
}

// The state at the first tested position decides alone: cut there iff it hits.
TEST(Xor32ChunkerTest, HitWindowEdges) {
  for (const ChunkingParams& p :
       {Params(64, 128, 256), Params(64, 65535, 140000),
        Params(64, 65536, 140000), ChunkingParams()}) {
    const uint32_t t = static_cast<uint32_t>(0xFFFFFFFFull / p.avg_size);
    struct Probe {
      uint32_t x;
      bool hit;
    };
    const Probe probes[] = {
        {kXor32Center, true},
        {kXor32Center - (t - 1), true},
        {kXor32Center + (t - 1), true},
        {kXor32Center - t, false},
        {kXor32Center + t, false},
        // abs(INT32_MIN) == INT32_MIN < T: CVMFS cuts here; a "circular
        // distance" reading of the rule would not.
        {0xFFFFFFFFu, true},
        {0xFFFFFFFEu, false},
        {0x00000000u, false},
    };
    for (const Probe& probe : probes) {
      SCOPED_TRACE(std::to_string(probe.x) + " avg " +
                   std::to_string(p.avg_size));
      ASSERT_EQ(RefHit(probe.x, p.avg_size), probe.hit);
      // Bytes min-31..min plant x at position min.
      std::string d(p.min_size - 31, '\x00');
      d += Plant(probe.x);
      d.append(p.max_size, '\x00');
      const std::vector<uint64_t> offsets = ChunkOffsets(d, p);
      ASSERT_GE(offsets.size(), 2u);
      EXPECT_EQ(offsets[1] == p.min_size, probe.hit);
      EXPECT_EQ(offsets, RefOffsets(d, p));
    }
  }
}

TEST(Xor32ChunkerTest, HardCutAtMaxOnZeros) {
  const ChunkingParams small = Params(64, 128, 256);
  EXPECT_EQ(ChunkOffsets(std::string(1000, '\0'), small),
            (std::vector<uint64_t>{0, 256, 512, 768}));
  // A cut that would fall on the end of the file is no cut: no empty chunk.
  EXPECT_EQ(ChunkOffsets(std::string(1024, '\0'), small),
            (std::vector<uint64_t>{0, 256, 512, 768}));
  EXPECT_EQ(ChunkOffsets(std::string(256, '\0'), small),
            std::vector<uint64_t>{0});
  EXPECT_EQ(ChunkOffsets(std::string(257, '\0'), small),
            (std::vector<uint64_t>{0, 256}));

  const ChunkingParams p;
  EXPECT_EQ(ChunkOffsets(std::string(48 << 20, '\0'), p),
            (std::vector<uint64_t>{0, 16 << 20, 32 << 20}));
  EXPECT_EQ(ChunkOffsets(std::string(16 << 20, '\0'), p),
            std::vector<uint64_t>{0});
  std::mt19937 rng(3);
  EXPECT_EQ(StreamOffsets(std::string(40 << 20, '\0'), p, &rng, 1 << 20),
            (std::vector<uint64_t>{0, 16 << 20, 32 << 20}));
}

TEST(Xor32ChunkerTest, StreamingContract) {
  const ChunkingParams p = Params(64, 128, 256);
  const std::string zeros(256, '\0');
  const auto* z = reinterpret_cast<const uint8_t*>(zeros.data());
  Xor32Chunker c(p);
  // The hard cut at 256 coincides with the end of the input: not yet reported.
  EXPECT_EQ(c.FindCut(z, 256), 256u);
  EXPECT_FALSE(c.AtCut());
  EXPECT_EQ(c.chunk_size(), 256u);
  EXPECT_EQ(c.FindCut(z, 0), 0u);  // nothing to look at: still pending
  EXPECT_FALSE(c.AtCut());
  EXPECT_EQ(c.FindCut(z, 10), 0u);  // more data: the cut is before it
  EXPECT_TRUE(c.AtCut());
  EXPECT_EQ(c.chunk_size(), 0u);
  EXPECT_EQ(c.FindCut(z, 10), 10u);
  EXPECT_FALSE(c.AtCut());
  EXPECT_EQ(c.chunk_size(), 10u);
  c.Reset();  // a new file
  EXPECT_EQ(c.chunk_size(), 0u);
  EXPECT_EQ(c.FindCut(z, 200), 200u);
  EXPECT_EQ(c.FindCut(z, 100), 56u);
  EXPECT_TRUE(c.AtCut());
  // Calling Reset() after a cut (as a caller may) changes nothing.
  c.Reset();
  EXPECT_EQ(c.FindCut(z, 255), 255u);

  // Invalid parameters: never a cut.
  Xor32Chunker off(Params(8, 4, 2));
  EXPECT_EQ(off.FindCut(z, 256), 256u);
  EXPECT_FALSE(off.AtCut());
  EXPECT_EQ(ChunkOffsets(std::string(), p), std::vector<uint64_t>{0});
}

// Not a pass/fail criterion; prints what the publisher can count on.
TEST(Xor32ChunkerTest, Throughput) {
  if (testing::kSanitized)
    GTEST_SKIP() << "a speed under a sanitizer means nothing";
  const std::string d = LcgBytes(256 << 20, 9);
  const auto* data = reinterpret_cast<const uint8_t*>(d.data());
  auto measure = [&](const ChunkingParams& p, const char* what) {
    double best = 0;
    size_t cuts = 0;
    for (int rep = 0; rep < 3; ++rep) {
      Xor32Chunker c(p);
      cuts = 0;
      auto start = std::chrono::steady_clock::now();
      for (size_t off = 0; off < d.size();) {
        off += c.FindCut(data + off, d.size() - off);
        cuts += c.AtCut();
      }
      const std::chrono::duration<double> s =
          std::chrono::steady_clock::now() - start;
      best = std::max(best, d.size() / s.count() / 1e6);
    }
    std::printf("[ xor32    ] %-44s %8.0f MB/s (%zu cuts)\n", what, best, cuts);
    RecordProperty(what, static_cast<int>(best));
  };
  measure(ChunkingParams(), "default 4/8/16 MiB (skips the first 4 MiB)");
  measure(Params(32, 1ull << 30, 1ull << 40),
          "every byte tested, avg >= 64 KiB");
  measure(Params(32, 1 << 15, 1ull << 40), "every byte tested, avg < 64 KiB");
}

}  // namespace
}  // namespace cvmfs
