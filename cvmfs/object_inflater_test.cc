#include "cvmfs/object_inflater.h"

#include <gtest/gtest.h>

#include <random>
#include <string>

namespace cvmfs {
namespace {

// Text that compresses, or random bytes that do not.
std::string Content(size_t n, unsigned seed, bool compressible) {
  std::mt19937 rng(seed);
  std::string s(n, ' ');
  for (auto& c : s)
    c = compressible ? "abcdefgh \n"[rng() % 10] : static_cast<char>(rng());
  return s;
}

// A budget with room for any object of these tests.
WholeInflateBudget* Budget() {
  static WholeInflateBudget budget(1 << 30);
  return &budget;
}

struct Outcome {
  Status status;
  std::string out;
  size_t calls = 0;  // of the sink
};

// Feeds `z` in pieces of `piece` bytes, then finishes.
Outcome FeedAll(ObjectInflater* inflater, const std::string& z, size_t piece) {
  Outcome o;
  auto sink = [&o](const char* d, size_t n) {
    o.out.append(d, n);
    ++o.calls;
    return Status::Ok();
  };
  for (size_t i = 0; i < z.size() && o.status.ok(); i += piece)
    o.status =
        inflater->Feed(z.data() + i, std::min(piece, z.size() - i), sink);
  if (o.status.ok()) o.status = inflater->Finish(sink);
  return o;
}

TEST(ObjectInflaterTest, GatheredAndStreamedGiveTheSameBytes) {
  for (bool compressible : {true, false}) {
    for (size_t size : {size_t{0}, size_t{1}, size_t{70000}, size_t{3 << 20}}) {
      const std::string in = Content(size, 7, compressible);
      const std::string z = ZlibCompress(in);
      for (bool gather : {true, false}) {
        WholeInflateGrant grant(gather ? Budget() : nullptr, size);
        ObjectInflater inflater(&grant, size);
        Outcome o = FeedAll(&inflater, z, 65536);
        ASSERT_TRUE(o.status.ok()) << o.status.ToString();
        EXPECT_EQ(in, o.out) << "size " << size << " gather " << gather;
        EXPECT_EQ(gather, inflater.gathering());
      }
    }
  }
}

TEST(ObjectInflaterTest, GatheredWritesNothingBeforeFinishAndInPieces) {
  const std::string in = Content(3 * ObjectInflater::kPiece + 5, 3, true);
  const std::string z = ZlibCompress(in);
  WholeInflateGrant grant(Budget(), in.size());
  ObjectInflater inflater(&grant, in.size());
  size_t calls = 0;
  auto sink = [&calls](const char*, size_t n) {
    EXPECT_LE(n, ObjectInflater::kPiece);
    ++calls;
    return Status::Ok();
  };
  ASSERT_TRUE(inflater.Feed(z.data(), z.size(), sink).ok());
  EXPECT_EQ(0u, calls);
  ASSERT_TRUE(inflater.Finish(sink).ok());
  EXPECT_EQ(4u, calls);
}

// More bytes than the size is Corruption before anything is written (a
// zlib bomb costs no disk); fewer reach the sink for the caller to count.
TEST(ObjectInflaterTest, GatheredStreamLargerThanItsSizeIsCorruption) {
  const std::string in = Content(100000, 5, true);
  WholeInflateGrant grant(Budget(), in.size() - 1);
  ObjectInflater inflater(&grant, in.size() - 1);
  Outcome o = FeedAll(&inflater, ZlibCompress(in), 4096);
  EXPECT_EQ(Status::Code::kCorruption, o.status.code()) << o.status.ToString();
  EXPECT_NE(std::string::npos, o.status.message().find("inflates"));
  EXPECT_EQ(0u, o.calls);

  WholeInflateGrant grant2(Budget(), in.size() + 10);
  ObjectInflater shorter(&grant2, in.size() + 10);
  o = FeedAll(&shorter, ZlibCompress(in), 4096);
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(in, o.out);
}

TEST(ObjectInflaterTest, DamagedTruncatedOrTrailingStreamsAreCorruption) {
  const std::string in = Content(200000, 9, true);
  const std::string z = ZlibCompress(in);
  std::string flipped = z;
  flipped[flipped.size() / 2] ^= 0x55;
  const std::string variants[] = {flipped, z.substr(0, z.size() - 9), z + "x",
                                  "not zlib at all"};
  for (const std::string& bad : variants) {
    for (bool gather : {true, false}) {
      WholeInflateGrant grant(gather ? Budget() : nullptr, in.size());
      ObjectInflater inflater(&grant, in.size());
      Outcome o = FeedAll(&inflater, bad, 8192);
      EXPECT_EQ(Status::Code::kCorruption, o.status.code())
          << "gather " << gather << " length " << bad.size() << ": "
          << o.status.ToString();
      if (gather) {
        EXPECT_EQ(0u, o.calls);
      }
    }
  }
}

// A compressed stream larger than any compressor makes of that size is
// streamed from the point it grows past the limit, with what came before.
TEST(ObjectInflaterTest, OversizedStreamIsHandedToZlib) {
  const std::string in = Content(50000, 11, false);
  // Stored blocks of at most 100 bytes: ~5% overhead.
  std::string z = "\x78\x01";
  for (size_t i = 0; i < in.size(); i += 100) {
    const size_t n = std::min<size_t>(100, in.size() - i);
    z.push_back(i + n == in.size() ? 1 : 0);
    z.push_back(static_cast<char>(n & 0xff));
    z.push_back(static_cast<char>(n >> 8));
    z.push_back(static_cast<char>(~n & 0xff));
    z.push_back(static_cast<char>((~n >> 8) & 0xff));
    z.append(in, i, n);
  }
  uint32_t a = 1, b = 0;
  for (unsigned char c : in) {
    a = (a + c) % 65521;
    b = (b + a) % 65521;
  }
  const uint32_t adler = (b << 16) | a;
  for (int shift : {24, 16, 8, 0})
    z.push_back(static_cast<char>(adler >> shift));
  ASSERT_GT(z.size(), ObjectInflater::GatherLimit(in.size()));

  WholeInflateGrant grant(Budget(), in.size());
  ObjectInflater inflater(&grant, in.size());
  Outcome o = FeedAll(&inflater, z, 1000);
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(in, o.out);
  EXPECT_FALSE(inflater.gathering());
}

TEST(ObjectInflaterTest, ResetStartsOverAndGathersAgain) {
  const std::string in = Content(100000, 13, true);
  const std::string z = ZlibCompress(in);
  WholeInflateGrant grant(Budget(), in.size());
  ObjectInflater inflater(&grant, in.size());
  auto ignore = [](const char*, size_t) { return Status::Ok(); };
  ASSERT_TRUE(inflater.Feed(z.data(), z.size() / 2, ignore).ok());
  inflater.Reset();
  Outcome o = FeedAll(&inflater, z, 3000);
  ASSERT_TRUE(o.status.ok()) << o.status.ToString();
  EXPECT_EQ(in, o.out);
}

TEST(WholeInflateBudgetTest, GrantsWhatIsLeftAndGivesItBack) {
  WholeInflateBudget budget(1000);
  {
    WholeInflateGrant a(&budget, 400);  // 864 bytes
    EXPECT_TRUE(a.granted());
    WholeInflateGrant b(&budget, 100);  // 264: too many
    EXPECT_FALSE(b.granted());
    EXPECT_EQ(136u, budget.left());
    WholeInflateGrant none(nullptr, 1);
    EXPECT_FALSE(none.granted());
  }
  EXPECT_EQ(1000u, budget.left());
}

// The buffers of a finished object serve the next one; a grant that is
// refused takes none; at most kIdleBuffers stay idle, the largest; a small
// object neither takes nor gives any.
TEST(WholeInflateBudgetTest, KeepsBuffersForTheNextObject) {
  WholeInflateBudget budget(1 << 30);
  const std::string in = Content(300000, 17, true);
  const std::string z = ZlibCompress(in);
  const char* first_input = nullptr;
  {
    WholeInflateGrant grant(&budget, in.size());
    ObjectInflater inflater(&grant, in.size());
    ASSERT_TRUE(FeedAll(&inflater, z, 65536).status.ok());
    first_input = grant.input()->data.get();
  }
  EXPECT_EQ(2u, budget.idle_buffers());
  {
    WholeInflateGrant grant(&budget, in.size());
    EXPECT_EQ(0u, budget.idle_buffers());
    ObjectInflater inflater(&grant, in.size());
    Outcome o = FeedAll(&inflater, z, 65536);
    ASSERT_TRUE(o.status.ok()) << o.status.ToString();
    EXPECT_EQ(in, o.out);
    const char* input = grant.input()->data.get();
    const char* output = grant.output()->data.get();
    EXPECT_TRUE(input == first_input || output == first_input);
  }
  {
    WholeInflateGrant a(&budget, in.size()), b(&budget, in.size()),
        c(&budget, in.size());
    for (WholeInflateGrant* g : {&a, &b, &c}) {
      ObjectInflater inflater(g, in.size());
      ASSERT_TRUE(FeedAll(&inflater, z, 65536).status.ok());
    }
  }
  EXPECT_EQ(WholeInflateBudget::kIdleBuffers, budget.idle_buffers());
  {
    const std::string small = Content(1000, 19, true);
    WholeInflateGrant grant(&budget, small.size());
    EXPECT_EQ(WholeInflateBudget::kIdleBuffers, budget.idle_buffers());
    ObjectInflater inflater(&grant, small.size());
    Outcome o = FeedAll(&inflater, ZlibCompress(small), 100);
    ASSERT_TRUE(o.status.ok()) << o.status.ToString();
    EXPECT_EQ(small, o.out);
  }
  EXPECT_EQ(WholeInflateBudget::kIdleBuffers, budget.idle_buffers());
  WholeInflateBudget empty(0);
  WholeInflateGrant refused(&empty, 10);
  EXPECT_FALSE(refused.granted());
  EXPECT_EQ(0u, refused.input()->capacity);
}

}  // namespace
}  // namespace cvmfs
