// CompressibilityProbe: large content that does not shrink is stored
// uncompressed; small content, content that compresses, and repositories
// without compression keep the repository's choice.
#include "publisher/compressibility.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace publisher {
namespace {

using cvmfs::Compression;

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

std::string Text(size_t n) {
  std::string s;
  for (int i = 0; s.size() < n; ++i)
    s += "line " + std::to_string(i) + " of a log that compresses well\n";
  s.resize(n);
  return s;
}

TEST(CompressibilityProbeTest, LargeRandomContentIsStoredUncompressed) {
  CompressibilityProbe probe;
  EXPECT_EQ(Compression::kNone,
            probe.Choose(RandomBytes(CompressibilityProbe::kMinSize, 1),
                         Compression::kZlib));
  EXPECT_EQ(Compression::kNone,
            probe.Choose(RandomBytes(5 << 20, 2), Compression::kZlib));
}

TEST(CompressibilityProbeTest, CompressibleContentStaysCompressed) {
  CompressibilityProbe probe;
  EXPECT_EQ(Compression::kZlib,
            probe.Choose(Text(3 << 20), Compression::kZlib));
}

TEST(CompressibilityProbeTest, SmallContentIsNotProbed) {
  CompressibilityProbe probe;
  EXPECT_EQ(Compression::kZlib,
            probe.Choose(RandomBytes(CompressibilityProbe::kMinSize - 1, 3),
                         Compression::kZlib));
}

TEST(CompressibilityProbeTest, RepositoryWithoutCompressionStaysWithout) {
  CompressibilityProbe probe;
  EXPECT_EQ(Compression::kNone,
            probe.Choose(Text(3 << 20), Compression::kNone));
}

// Compressible bytes anywhere in the sample (start, middle or end) count:
// random bytes with a text middle are judged on all three slices together.
TEST(CompressibilityProbeTest, EverySliceOfTheSampleCounts) {
  CompressibilityProbe probe;
  const size_t n = 4 << 20;
  std::string mixed = RandomBytes(n, 4);
  const std::string text = Text(n);
  mixed.replace(n / 2 - (64 << 10), 128 << 10, text, 0, 128 << 10);
  EXPECT_EQ(Compression::kZlib, probe.Choose(mixed, Compression::kZlib));
  // Nearly random: a few compressible bytes do not make it worth it.
  std::string nearly = RandomBytes(n, 5);
  nearly.replace(0, 1024, 1024, 'x');
  EXPECT_EQ(Compression::kNone, probe.Choose(nearly, Compression::kZlib));
}

}  // namespace
}  // namespace publisher
