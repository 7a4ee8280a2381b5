#include "cvmfs/bundle.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace cvmfs {
namespace {

Digest DigestOf(std::string_view data) {
  return HashString(HashAlgorithm::kSha1, data);
}

// Records what the reader hands over.
class Recorder : public BundleReader::Visitor {
 public:
  Status BeginMember(const BundleMember& m) override {
    begun.push_back(m);
    data.emplace_back();
    return Status::Ok();
  }
  Status MemberData(const void* p, size_t n) override {
    data.back().append(static_cast<const char*>(p), n);
    return Status::Ok();
  }
  Status EndMember() override {
    ++ended;
    return Status::Ok();
  }
  std::vector<BundleMember> begun;
  std::vector<std::string> data;
  int ended = 0;
};

std::string MakeBundle(const std::vector<std::string>& objects) {
  std::vector<BundleMember> members;
  for (const std::string& o : objects)
    members.push_back(BundleMember{DigestOf(o), o.size()});
  std::string out = SerializeBundleHeader(members);
  for (const std::string& o : objects) out += o;
  return out;
}

Status ReadAll(const std::string& bundle, size_t piece, Recorder* r,
               Digest* digest = nullptr) {
  BundleReader reader(HashAlgorithm::kSha1, r);
  for (size_t i = 0; i < bundle.size(); i += piece) {
    CVMFS_RETURN_IF_ERROR(
        reader.Feed(bundle.data() + i, std::min(piece, bundle.size() - i)));
  }
  CVMFS_RETURN_IF_ERROR(reader.Finish());
  if (digest) *digest = reader.digest();
  return Status::Ok();
}

TEST(BundleTest, HeaderIsTheDocumentedText) {
  Digest a = DigestOf("a");
  EXPECT_EQ(SerializeBundleHeader({{a, 7}}),
            "cvmfs-bundle 1\n1\n" + a.ToString() + " 7\n\n");
}

TEST(BundleTest, ReaderHandsOverEveryMemberWhateverThePieces) {
  std::vector<std::string> objects = {"first object", "x",
                                      std::string(5000, 'z')};
  std::string bundle = MakeBundle(objects);
  for (size_t piece : {size_t{1}, size_t{3}, size_t{64}, bundle.size()}) {
    Recorder r;
    Digest digest;
    ASSERT_TRUE(ReadAll(bundle, piece, &r, &digest).ok()) << piece;
    EXPECT_EQ(r.data, objects);
    EXPECT_EQ(r.ended, 3);
    ASSERT_EQ(r.begun.size(), 3u);
    EXPECT_EQ(r.begun[1].digest, DigestOf("x"));
    EXPECT_EQ(digest, DigestOf(bundle));
  }
}

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(toupper(c));
  return s;
}

TEST(BundleTest, ReaderRejectsMalformedBundles) {
  std::string good = MakeBundle({"abc", "defg"});
  Digest d = DigestOf("abc");
  std::vector<std::string> bad = {
      "",                                                   // truncated header
      "cvmfs-bundle 2\n1\n" + d.ToString() + " 3\n\nabc",   // version
      "cvmfs-bundle 1\n0\n\n",                              // no members
      "cvmfs-bundle 1\n2\n" + d.ToString() + " 3\n\nabc",   // count
      "cvmfs-bundle 1\n1\n" + d.ToString() + " -3\n\nabc",  // size
      "cvmfs-bundle 1\n1\n" + d.ToString() + "\n\nabc",     // no size
      "cvmfs-bundle 1\n1\nnothex 3\n\nabc",                 // digest
      "cvmfs-bundle 1\n01\n" + d.ToString() + " 3\n\nabc",  // count form
      "cvmfs-bundle 1\n1\n" + d.ToString() + " 03\n\nabc",  // size form
      "cvmfs-bundle 1\n1\n" + Upper(d.ToString()) + " 3\n\nabc",    // hex
      "cvmfs-bundle 1\n1\n" + d.ToString() + "-shake128 3\n\nabc",  // algo
      good.substr(0, good.size() - 1),  // truncated body
      good + "x",                       // trailing bytes
  };
  for (const std::string& b : bad) {
    Recorder r;
    Status s = ReadAll(b, 5, &r);
    EXPECT_EQ(s.code(), Status::Code::kCorruption) << b;
  }
}

TEST(BundleTest, EndlessHeaderIsRefusedEarly) {
  Recorder r;
  BundleReader reader(HashAlgorithm::kSha1, &r);
  std::string junk(1 << 20, 'a');
  EXPECT_EQ(reader.Feed(junk.data(), junk.size()).code(),
            Status::Code::kCorruption);
}

TEST(BundleTest, VisitorErrorStopsTheReader) {
  class Refuser : public Recorder {
    Status MemberData(const void*, size_t) override {
      return Status::IoError("disk full");
    }
  } r;
  Status s = ReadAll(MakeBundle({"abc", "def"}), 100, &r);
  EXPECT_EQ(s.code(), Status::Code::kIoError);
}

TEST(BundleTest, PlanSortsFiltersDeduplicatesAndSplits) {
  auto cand = [](std::string name, std::string data, uint64_t size) {
    return BundleCandidate{std::move(name), DigestOf(data), size};
  };
  std::vector<BundleCandidate> c = {
      cand("b", "B", 10),
      cand("a", "A", 10),
      cand("big", "BIG", kBundleMemberMax + 1),
      cand("empty", "", 0),
      cand("c", "A", 10),  // same content as "a"
      cand("d", "D", kBundleTargetBytes - 25),
      cand("e", "E", 10),
  };
  std::vector<BundlePlan> plans = PlanBundles(c);
  // "big" and "d" are over kBundleMemberMax, "empty" is empty, "c" repeats
  // "a"'s content.
  ASSERT_EQ(plans.size(), 1u);
  EXPECT_EQ(plans[0].first_name, "a");
  ASSERT_EQ(plans[0].members.size(), 3u);  // a, b, e ("d" too big)
  EXPECT_EQ(plans[0].members[2].digest, DigestOf("E"));

  std::vector<BundleCandidate> many;
  for (int i = 0; i < 20; ++i) {
    many.push_back(cand("f" + std::to_string(100 + i), std::to_string(i),
                        kBundleMemberMax));
  }
  plans = PlanBundles(many);
  // 8 members of 128 KiB fill 1 MiB.
  ASSERT_EQ(plans.size(), 3u);
  EXPECT_EQ(plans[0].members.size(), 8u);
  EXPECT_EQ(plans[1].first_name, "f108");
  EXPECT_EQ(plans[2].members.size(), 4u);
  EXPECT_LE(plans[0].member_bytes(), kBundleTargetBytes);
}

TEST(BundleTest, OneCandidateGetsNoBundle) {
  EXPECT_TRUE(PlanBundles({{"a", DigestOf("a"), 5}}).empty());
}

TEST(BundleTest, CoveringBundleIsTheGreatestFirstNameNotAbove) {
  std::vector<BundleRef> rows(3);
  rows[0].first_name = "b";
  rows[1].first_name = "f";
  rows[2].first_name = "m";
  EXPECT_EQ(FindCoveringBundle(rows, "a"), nullptr);
  EXPECT_EQ(FindCoveringBundle(rows, "b"), &rows[0]);
  EXPECT_EQ(FindCoveringBundle(rows, "e"), &rows[0]);
  EXPECT_EQ(FindCoveringBundle(rows, "f"), &rows[1]);
  EXPECT_EQ(FindCoveringBundle(rows, "zz"), &rows[2]);
  EXPECT_EQ(FindCoveringBundle({}, "a"), nullptr);
}

}  // namespace
}  // namespace cvmfs
