// The publisher's GatewayClient against the real HTTP frontend on
// 127.0.0.1 (a free port), with a memory store and a fake commit.
#include "publisher/gateway_client.h"

#include <gtest/gtest.h>

#include "server/gateway/gateway_http.h"
#include "server/gateway/gateway_service.h"

namespace gateway {
namespace {

TEST(GatewayClientTest, LeasePackCommitOverHttp) {
  cvmfs::ManualClock clock;
  cvmfs::MemoryObjectStore store;
  std::vector<LeaseCommitRequest> commits;
  GatewayOptions options;
  options.access.repos["r.org"].key_paths = {{"k1", "/"}, {"k2", "/"}};
  options.access.keys = {{"k1", {"s1", false}}, {"k2", {"s2", false}}};
  options.clock = &clock;
  options.store = [&](const std::string&) {
    return cvmfs::Result<cvmfs::ObjectStore*>(&store);
  };
  options.commit = [&](const LeaseCommitRequest& r) {
    commits.push_back(r);
    return cvmfs::Result<uint64_t>(uint64_t{5});
  };
  GatewayService service(std::move(options));
  auto server = GatewayHttpServer::Start(&service, "127.0.0.1", 0);
  ASSERT_TRUE(server.ok()) << server.status().ToString();
  std::string url =
      "http://127.0.0.1:" + std::to_string((*server)->port()) + "/api/v1";
  publisher::GatewayClient one(url, {"k1", "s1"});
  publisher::GatewayClient two(url, {"k2", "s2"});
  publisher::GatewayClient forged(url, {"k1", "not-s1"});

  EXPECT_FALSE(forged.AcquireLease("r.org/a").ok());
  auto token = one.AcquireLease("r.org/a");
  ASSERT_TRUE(token.ok()) << token.status().ToString();
  auto busy = two.AcquireLease("r.org/a/b");
  EXPECT_EQ(busy.status().code(), cvmfs::Status::Code::kBusy);
  EXPECT_NE(busy.status().message().find("k1"), std::string::npos)
      << busy.status().message();

  cvmfs::ObjectPackBuilder pack;
  cvmfs::ObjectName id{cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "x"),
                       cvmfs::ObjectSuffix::kNone};
  ASSERT_TRUE(pack.AddCas(id, "x"));
  ASSERT_TRUE(one.SubmitPack(*token, pack, cvmfs::HashAlgorithm::kSha1).ok());
  EXPECT_TRUE(store.Exists(cvmfs::ObjectPath(id.digest, id.suffix)));

  cvmfs::Digest a = cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "a");
  cvmfs::Digest b = cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "b");
  auto rev = one.Commit(*token, a, b, "tag", "");
  ASSERT_TRUE(rev.ok()) << rev.status().ToString();
  EXPECT_EQ(*rev, 5u);
  ASSERT_EQ(commits.size(), 1u);
  EXPECT_EQ(commits[0].old_root, a);
  EXPECT_EQ(commits[0].new_root, b);

  auto again = two.AcquireLease("r.org/");
  ASSERT_TRUE(again.ok()) << again.status().ToString();
  EXPECT_TRUE(two.DropLease(*again).ok());
  EXPECT_FALSE(two.DropLease(*again).ok());
}

}  // namespace
}  // namespace gateway
