#include "server/gateway/gateway_service.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "cvmfs/gateway_key.h"
#include "cvmfs/object_pack.h"

namespace gateway {
namespace {

using nlohmann::json;
using std::chrono::seconds;

class GatewayServiceTest : public ::testing::Test {
 protected:
  GatewayServiceTest() {
    options_.access.repos["r.org"].key_paths = {{"alice", "/a"}, {"bob", "/"}};
    options_.access.keys = {{"alice", {"sa", false}},
                            {"bob", {"sb", false}},
                            {"adm", {"sx", true}}};
    options_.clock = &clock_;
    options_.max_lease_time = seconds(60);
    options_.new_token = [this] { return "tok" + std::to_string(++tokens_); };
    options_.store = [this](const std::string&) {
      return cvmfs::Result<cvmfs::ObjectStore*>(&store_);
    };
    options_.commit = [this](const LeaseCommitRequest& r) {
      commits_.push_back(r);
      return cvmfs::Result<uint64_t>(uint64_t{7});
    };
    options_.gc = [this](const RepositoryGcRequest& r) {
      gcs_.push_back(r);
      // A lease asked for while the collection runs is refused.
      gc_saw_lease_ = NewLease(bob_, "r.org/b");
      return cvmfs::Result<std::string>("Deleted 3 of 9 objects\n");
    };
    service_ = std::make_unique<GatewayService>(options_);
  }

  json Call(const std::string& method, const std::string& path,
            const std::string& body, const cvmfs::GatewayKey* key,
            const std::string& hmac_input,
            std::map<std::string, std::string> headers = {}) {
    HttpRequest r{method, path, std::move(headers), {}, body};
    if (key)
      r.headers["authorization"] =
          cvmfs::GatewayAuthorization(*key, hmac_input);
    HttpReply reply = service_->Handle(r);
    return json::parse(reply.body);
  }
  json NewLease(const cvmfs::GatewayKey& key, const std::string& path) {
    std::string body = json{{"path", path}, {"api_version", "3"}}.dump();
    return Call("POST", "/api/v1/leases", body, &key, body);
  }
  json SendPack(const cvmfs::GatewayKey& key, const std::string& token,
                const cvmfs::ObjectPackBuilder& b) {
    std::string header = b.Header();
    std::string msg = json{
        {"payload_digest",
         cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, header).ToString()},
        {"header_size", std::to_string(header.size())},
        {"api_version",
         "3"}}.dump();
    return Call("POST", "/api/v1/payloads/" + token, msg + b.Serialize(), &key,
                token, {{"message-size", std::to_string(msg.size())}});
  }

  cvmfs::ManualClock clock_;
  cvmfs::MemoryObjectStore store_;
  std::vector<LeaseCommitRequest> commits_;
  std::vector<RepositoryGcRequest> gcs_;
  json gc_saw_lease_;
  int tokens_ = 0;
  GatewayOptions options_;
  std::unique_ptr<GatewayService> service_;
  cvmfs::GatewayKey alice_{"alice", "sa"}, bob_{"bob", "sb"};
};

TEST_F(GatewayServiceTest, VersionAndRepos) {
  json v = Call("GET", "/api/v1", "", nullptr, "");
  EXPECT_EQ(v["api_version"], "3");
  json repos = Call("GET", "/api/v1/repos", "", nullptr, "");
  EXPECT_EQ(repos["data"]["r.org"]["keys"]["alice"], "/a");
}

TEST_F(GatewayServiceTest, LeaseNeedsValidHmacAndPath) {
  std::string body = json{{"path", "r.org/a"}, {"api_version", "3"}}.dump();
  cvmfs::GatewayKey wrong{"alice", "not-the-secret"};
  EXPECT_EQ(Call("POST", "/api/v1/leases", body, &wrong, body)["reason"],
            "invalid_hmac");
  EXPECT_EQ(Call("POST", "/api/v1/leases", body, &alice_, "other")["reason"],
            "invalid_hmac");
  EXPECT_EQ(NewLease(alice_, "r.org/b")["reason"], "invalid_path");
  EXPECT_EQ(NewLease(alice_, "x.org/a")["reason"], "invalid_repo");
  EXPECT_EQ(NewLease(alice_, "r.org/a/sub")["status"], "ok");
}

TEST_F(GatewayServiceTest, ConflictNamesHolderAndExpiryFreesPath) {
  json first = NewLease(alice_, "r.org/a");
  ASSERT_EQ(first["status"], "ok");
  json busy = NewLease(bob_, "r.org/");
  EXPECT_EQ(busy["status"], "path_busy");
  EXPECT_EQ(busy["holder"], "alice");
  EXPECT_EQ(busy["lease_path"], "r.org/a");
  EXPECT_EQ(NewLease(bob_, "r.org/b")["status"], "ok");  // disjoint
  clock_.Advance(seconds(61));
  EXPECT_EQ(NewLease(bob_, "r.org/a")["status"], "ok");
  std::string token = first["session_token"];
  std::string commit = json{{"old_root_hash", std::string(40, 'a')},
                            {"new_root_hash", std::string(40, 'b')}}
                           .dump();
  json late = Call("POST", "/api/v1/leases/" + token, commit, &alice_, token);
  EXPECT_EQ(late["status"], "error");
  EXPECT_TRUE(commits_.empty());
}

TEST_F(GatewayServiceTest, PayloadStoresVerifiedObjectsThenCommit) {
  json lease = NewLease(alice_, "r.org/a");
  std::string token = lease["session_token"];
  cvmfs::ObjectPackBuilder b;
  cvmfs::ObjectName id{cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "obj"),
                       cvmfs::ObjectSuffix::kCatalog};
  ASSERT_TRUE(b.AddCas(id, "obj"));
  EXPECT_EQ(SendPack(alice_, token, b)["status"], "ok");
  EXPECT_TRUE(store_.Exists(cvmfs::ObjectPath(id.digest, id.suffix)));

  cvmfs::ObjectPackBuilder lying;
  ASSERT_TRUE(lying.AddCas(id, "not obj"));
  EXPECT_EQ(SendPack(alice_, token, lying)["status"], "error");

  std::string commit = json{
      {"old_root_hash", std::string(40, 'a')},
      {"new_root_hash", std::string(40, 'b')},
      {"tag_name", "t1"}}.dump();
  json done = Call("POST", "/api/v1/leases/" + token, commit, &alice_, token);
  EXPECT_EQ(done["status"], "ok") << done.dump();
  EXPECT_EQ(done["final_revision"], 7);
  ASSERT_EQ(commits_.size(), 1u);
  EXPECT_EQ(commits_[0].lease.path, "/a");
  EXPECT_EQ(commits_[0].tag_name, "t1");
  // The lease is gone: its path is free, its token refused.
  EXPECT_EQ(SendPack(alice_, token, b)["reason"], "invalid_token");
  EXPECT_EQ(NewLease(bob_, "r.org/")["status"], "ok");
}

// Named objects (a file the publisher uploads under a name of its own) are
// stored under their name after their bytes are checked, but only under
// data/: the signed files at the top are the gateway's.
TEST_F(GatewayServiceTest, NamedObjectsOnlyUnderData) {
  std::string token = NewLease(alice_, "r.org/a")["session_token"];
  const std::string bytes = "history database";
  cvmfs::ObjectName id{cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, bytes),
                       cvmfs::ObjectSuffix::kNone};
  const std::string name =
      cvmfs::ObjectPath(cvmfs::HashString(cvmfs::HashAlgorithm::kSha1, "h"),
                        cvmfs::ObjectSuffix::kHistory);
  cvmfs::ObjectPackBuilder b;
  ASSERT_TRUE(b.AddNamed(id, name, bytes));
  EXPECT_EQ(SendPack(alice_, token, b)["status"], "ok");
  EXPECT_EQ(bytes, *store_.Get(name));

  for (const char* bad : {".cvmfspublished", "data/../.cvmfswhitelist",
                          "/etc/passwd", "data/ab"}) {
    cvmfs::ObjectPackBuilder refused;
    ASSERT_TRUE(refused.AddNamed(id, bad, bytes));
    json reply = SendPack(alice_, token, refused);
    EXPECT_EQ(reply["status"], "error") << bad;
    // Paths leaving the repository are refused by the pack's reader already.
    const std::string why = reply["reason"];
    EXPECT_TRUE(why.find("only objects under data/") != std::string::npos ||
                why.find("bad object name") != std::string::npos)
        << bad << ": " << why;
    EXPECT_FALSE(store_.Exists(bad));
  }
  // Bytes that are not what the pack says are refused as for CAS objects.
  cvmfs::ObjectPackBuilder lying;
  ASSERT_TRUE(lying.AddNamed(id, name, "other bytes"));
  EXPECT_EQ(SendPack(alice_, token, lying)["status"], "error");
}

TEST_F(GatewayServiceTest, DropAndAdminDropByPath) {
  std::string t1 = NewLease(alice_, "r.org/a")["session_token"];
  EXPECT_EQ(Call("DELETE", "/api/v1/leases/" + t1, "", &alice_, t1)["status"],
            "ok");
  NewLease(bob_, "r.org/c");
  cvmfs::GatewayKey adm{"adm", "sx"};
  std::string path = "/api/v1/leases-by-path/r.org/c";
  EXPECT_EQ(Call("DELETE", path, "", &bob_, path)["reason"], "no_admin_key");
  EXPECT_EQ(Call("DELETE", path, "", &adm, path)["status"], "ok");
  EXPECT_EQ(NewLease(alice_, "r.org/a")["status"], "ok");
  EXPECT_EQ(NewLease(bob_, "r.org/c")["status"], "ok");
}

// Admin gc: an admin key only, a known repository, CVMFS's request fields
// turned into the collection's policy, and no lease while it runs (objects
// uploaded for an uncommitted lease belong to no revision).
TEST_F(GatewayServiceTest, AdminGc) {
  cvmfs::GatewayKey adm{"adm", "sx"};
  auto gc = [this](const cvmfs::GatewayKey& key, const json& body) {
    std::string text = body.dump();
    return Call("POST", "/api/v1/gc", text, &key, text);
  };
  EXPECT_EQ(gc(bob_, {{"repo", "r.org"}})["reason"], "no_admin_key");
  EXPECT_EQ(gc(adm, {{"repo", "x.org"}})["reason"], "invalid_repo");
  EXPECT_EQ(gc(adm, {{"repo", "r.org"}, {"num_revisions", -1}})["status"],
            "error");
  EXPECT_EQ(gc(adm, {{"repo", "r.org"},
                     {"num_revisions", 2},
                     {"timestamp", "2026-01-01"}})["status"],
            "error");
  EXPECT_TRUE(gcs_.empty());

  json done = gc(adm, {{"repo", "r.org"},
                       {"num_revisions", 2},
                       {"timestamp", ""},
                       {"dry_run", true}});
  EXPECT_EQ(done["status"], "ok");
  EXPECT_EQ(done["output"], "Deleted 3 of 9 objects\n");
  ASSERT_EQ(gcs_.size(), 1u);
  EXPECT_EQ(gcs_[0].fqrn, "r.org");
  EXPECT_EQ(gcs_[0].policy.keep_revisions, 2u);
  EXPECT_FALSE(gcs_[0].policy.keep_since);
  EXPECT_TRUE(gcs_[0].dry_run);
  EXPECT_EQ(gc_saw_lease_["status"], "path_busy");
  EXPECT_EQ(gc_saw_lease_["holder"], "gc (adm)");
  // The collection's lease is gone with it.
  EXPECT_EQ(NewLease(bob_, "r.org/b")["status"], "ok");

  // CVMFS's zero values mean "not given": the default policy; a timestamp
  // as `cvmfs_server gc -t` reads it.
  ASSERT_EQ(gc(adm, {{"repo", "r.org"}, {"num_revisions", 0}})["status"],
            "path_busy");  // bob's lease on r.org/b
  EXPECT_EQ(Call("DELETE", "/api/v1/leases-by-path/r.org/b", "", &adm,
                 "/api/v1/leases-by-path/r.org/b")["status"],
            "ok");
  EXPECT_EQ(gc(adm, {{"repo", "r.org"},
                     {"num_revisions", 0},
                     {"timestamp", "@1700000000"}})["status"],
            "ok");
  ASSERT_EQ(gcs_.size(), 2u);
  EXPECT_FALSE(gcs_[1].policy.keep_revisions);
  EXPECT_EQ(gcs_[1].policy.keep_since, 1700000000);
  EXPECT_FALSE(gcs_[1].dry_run);
}

// Admin enable/disable (CVMFS's POST /repos/<fqrn> {"enable":..}): a
// disabled repository grants no lease and commits none already held, and
// says so in /repos; enabled again, both work.
TEST_F(GatewayServiceTest, AdminDisablesAndEnablesARepository) {
  cvmfs::GatewayKey adm{"adm", "sx"};
  auto set = [this](const cvmfs::GatewayKey& key, const std::string& fqrn,
                    const json& body) {
    std::string text = body.dump();
    return Call("POST", "/api/v1/repos/" + fqrn, text, &key, text);
  };
  std::string token = NewLease(alice_, "r.org/a")["session_token"];
  EXPECT_EQ(set(bob_, "r.org", {{"enable", false}})["reason"], "no_admin_key");
  EXPECT_EQ(set(adm, "x.org", {{"enable", false}})["reason"], "invalid_repo");
  EXPECT_EQ(set(adm, "r.org", {{"enable", "no"}})["status"], "error");
  EXPECT_EQ(
      Call("GET", "/api/v1/repos/r.org", "", nullptr, "")["data"]["enabled"],
      true);

  EXPECT_EQ(set(adm, "r.org", {{"enable", false}, {"wait", true}})["status"],
            "ok");
  EXPECT_EQ(
      Call("GET", "/api/v1/repos", "", nullptr, "")["data"]["r.org"]["enabled"],
      false);
  EXPECT_EQ(NewLease(bob_, "r.org/b")["reason"], "repo_disabled");
  std::string commit = json{{"old_root_hash", std::string(40, 'a')},
                            {"new_root_hash", std::string(40, 'b')}}
                           .dump();
  EXPECT_EQ(
      Call("POST", "/api/v1/leases/" + token, commit, &alice_, token)["reason"],
      "repo_disabled");
  EXPECT_TRUE(commits_.empty());

  EXPECT_EQ(set(adm, "r.org", {{"enable", true}})["status"], "ok");
  EXPECT_EQ(NewLease(bob_, "r.org/b")["status"], "ok");
  EXPECT_EQ(
      Call("POST", "/api/v1/leases/" + token, commit, &alice_, token)["status"],
      "ok");
  EXPECT_EQ(commits_.size(), 1u);
}

TEST_F(GatewayServiceTest, SubscribersGetMessagesPublishedAfterThem) {
  std::string old_msg =
      json{{"repository", "r.org"}, {"manifest", "m1"}}.dump();
  EXPECT_EQ(Call("POST", "/api/v1/notifications/publish", old_msg, nullptr,
                 "")["status"],
            "ok");
  HttpRequest sub{"GET",
                  "/api/v1/notifications/subscribe",
                  {},
                  {},
                  json{{"version", 1}, {"repository", "r.org"}}.dump()};
  HttpReply stream = service_->Handle(sub);
  ASSERT_TRUE(stream.stream);
  EXPECT_EQ(stream.content_type, "text/event-stream");
  std::string msg = json{{"repository", "r.org"}, {"manifest", "m2"}}.dump();
  Call("POST", "/api/v1/notifications/publish", msg, nullptr, "");
  EXPECT_EQ(stream.stream(), "data: " + msg + "\n\n");
  service_->Shutdown();
  EXPECT_FALSE(stream.stream());
}

TEST(NotificationHubTest, WaitTimesOutAndSeesOnlyNewerMessages) {
  NotificationHub hub;
  hub.Publish("r", "one");
  uint64_t cursor = hub.Cursor("r");
  EXPECT_FALSE(hub.WaitNext("r", &cursor, std::chrono::milliseconds(1)));
  hub.Publish("s", "other repository");
  hub.Publish("r", "two");
  hub.Publish("r", "three");
  EXPECT_EQ(hub.WaitNext("r", &cursor, std::chrono::milliseconds(1)), "three");
  EXPECT_FALSE(hub.WaitNext("r", &cursor, std::chrono::milliseconds(1)));
}

}  // namespace
}  // namespace gateway
