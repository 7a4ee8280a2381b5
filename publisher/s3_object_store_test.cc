#include "publisher/s3_object_store.h"

#include <gtest/gtest.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/mutex.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

S3Response Answer(long code,  // NOLINT(runtime/int): libcurl's type
                  std::string body = "", std::string error = "") {
  S3Response r;
  r.http_code = code;
  r.body = std::move(body);
  r.error = std::move(error);
  return r;
}

// An in-memory bucket behind the transport seam; `faults` are answered (in
// order) before the bucket is consulted. A GET with a sink gets the body in
// pieces of `piece` bytes, and so does the body of a fault without an HTTP
// answer (a connection that broke after those bytes).
class FakeS3 : public S3Transport {
 public:
  S3Response Send(const S3Request& r) override {
    cvmfs::MutexLock lock(&mu_);
    log.push_back(r);
    S3Response out;
    if (!faults.empty()) {
      out = faults.front();
      faults.pop_front();
      if (r.sink != nullptr && out.http_code == 0) {
        Stream(r, out.body, &out);
        out.body.clear();
      }
      return out;
    }
    switch (r.method) {
      case S3Request::Method::kPut:
        if (r.body_file.empty()) {
          objects[r.key] = std::string(r.body);
        } else {
          auto bytes = cvmfs::ReadFile(r.body_file);
          if (!bytes.ok()) {
            out.local_status = bytes.status();
            return out;
          }
          objects[r.key] = *bytes;
        }
        out.http_code = 200;
        break;
      case S3Request::Method::kHead:
      case S3Request::Method::kGet:
        if (!r.query.empty()) return List(r.query);
        out.http_code = objects.count(r.key) ? 200 : 404;
        if (out.http_code == 200)
          out.content_length = static_cast<int64_t>(objects[r.key].size());
        if (out.http_code == 200 && r.method == S3Request::Method::kGet) {
          if (r.sink == nullptr) {
            out.body = objects[r.key];
          } else {
            Stream(r, objects[r.key], &out);
          }
        }
        break;
      case S3Request::Method::kDelete:
        objects.erase(r.key);
        out.http_code = 204;
        break;
    }
    return out;
  }
  // Two keys per page; the token is the index of the next key.
  S3Response List(const std::string& query) {
    size_t start = 0;
    if (query.rfind("continuation-token=", 0) == 0)
      start = std::stoul(query.substr(19));
    std::string xml = "<ListBucketResult>";
    size_t i = 0;
    for (const auto& [key, value] : objects) {
      if (i >= start && i < start + 2 &&
          key.find("/data/") != std::string::npos)
        xml += "<Contents><Key>" + key + "</Key></Contents>";
      ++i;
    }
    if (start + 2 < objects.size()) {
      xml += "<IsTruncated>true</IsTruncated><NextContinuationToken>" +
             std::to_string(start + 2) + "</NextContinuationToken>";
    } else {
      xml += "<IsTruncated>false</IsTruncated>";
    }
    return Answer(200, xml + "</ListBucketResult>");
  }

  void Stream(const S3Request& r, std::string_view body, S3Response* out) {
    for (size_t at = 0; at < body.size(); at += piece) {
      std::string_view part = body.substr(at, piece);
      out->local_status = (*r.sink)(part.data(), part.size());
      if (!out->local_status.ok()) return;
      out->streamed += part.size();
    }
  }

  cvmfs::Mutex mu_;
  size_t piece = 3;
  std::vector<S3Request> log;
  std::deque<S3Response> faults;
  std::map<std::string, std::string> objects;
};

struct Fixture {
  FakeS3* s3 = nullptr;
  std::vector<std::chrono::milliseconds> sleeps;
  std::unique_ptr<S3ObjectStore> store;

  explicit Fixture(unsigned retries = 3) {
    auto t = std::make_unique<FakeS3>();
    s3 = t.get();
    S3StoreOptions o;
    o.prefix = "repo.test";
    o.max_retries = retries;
    o.sleep = [this](std::chrono::milliseconds d) { sleeps.push_back(d); };
    store = std::make_unique<S3ObjectStore>(std::move(t), o);
  }
};

TEST(S3ObjectStoreTest, PutGetRemoveUnderPrefix) {
  Fixture f;
  ASSERT_TRUE(f.store->Put(".cvmfspublished", "m").ok());
  EXPECT_EQ(f.s3->objects.count("repo.test/.cvmfspublished"), 1u);
  EXPECT_EQ(*f.store->Get(".cvmfspublished"), "m");
  EXPECT_TRUE(f.store->Exists(".cvmfspublished"));
  ASSERT_TRUE(f.store->Remove(".cvmfspublished").ok());
  EXPECT_FALSE(f.store->Exists(".cvmfspublished"));
  EXPECT_TRUE(f.store->Get(".cvmfspublished").status().IsNotFound());
}

TEST(S3ObjectStoreTest, SizeIsOneHeadNotADownload) {
  Fixture f;
  ASSERT_TRUE(f.store->Put("data/ab/cd", std::string(1234, 'x')).ok());
  size_t before = f.s3->log.size();
  auto size = f.store->Size("data/ab/cd");
  ASSERT_TRUE(size.ok()) << size.status().ToString();
  EXPECT_EQ(*size, 1234u);
  ASSERT_EQ(f.s3->log.size(), before + 1);
  EXPECT_EQ(f.s3->log.back().method, S3Request::Method::kHead);
  EXPECT_TRUE(f.store->Size("data/ab/ef").status().IsNotFound());
}

TEST(S3ObjectStoreTest, PeekBeforePutSkipsExistingDataObjects) {
  Fixture f;
  ASSERT_TRUE(f.store->Put("data/ab/cd", "x").ok());
  size_t before = f.s3->log.size();
  ASSERT_TRUE(f.store->Put("data/ab/cd", "x").ok());
  ASSERT_EQ(f.s3->log.size(), before + 1);
  EXPECT_EQ(f.s3->log.back().method, S3Request::Method::kHead);
}

TEST(S3ObjectStoreTest, PutIfAbsentIsOneHeadAndOnePut) {
  Fixture f;
  auto written = f.store->PutIfAbsent("data/ab/cd", "x");
  ASSERT_TRUE(written.ok()) << written.status().ToString();
  EXPECT_TRUE(*written);
  ASSERT_EQ(f.s3->log.size(), 2u);
  EXPECT_EQ(f.s3->log[0].method, S3Request::Method::kHead);
  EXPECT_EQ(f.s3->log[1].method, S3Request::Method::kPut);
  written = f.store->PutIfAbsent("data/ab/cd", "x");
  ASSERT_TRUE(written.ok());
  EXPECT_FALSE(*written);
  EXPECT_EQ(f.s3->log.size(), 3u);
}

TEST(S3ObjectStoreTest, RetriesServerErrorsWithBackoff) {
  Fixture f;
  f.s3->faults = {Answer(503), Answer(0, "", "Connection refused"),
                  Answer(500)};
  ASSERT_TRUE(f.store->Put(".cvmfswhitelist", "w").ok());
  EXPECT_EQ(*f.store->Get(".cvmfswhitelist"), "w");
  ASSERT_EQ(f.sleeps.size(), 3u);
  EXPECT_LT(f.sleeps[0], f.sleeps[1]);
  EXPECT_LT(f.sleeps[1], f.sleeps[2]);
}

TEST(S3ObjectStoreTest, GivesUpAfterMaxRetries) {
  Fixture f(/*retries=*/1);
  f.s3->faults = {Answer(502), Answer(502), Answer(502)};
  auto s = f.store->Put(".cvmfspublished", "m");
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("HTTP 502"), std::string::npos) << s.ToString();
  EXPECT_EQ(f.s3->log.size(), 2u);
}

TEST(S3ObjectStoreTest, AccessDeniedIsNotRetriedAndNamesTheKey) {
  Fixture f;
  f.s3->faults = {Answer(403, "<Error>AccessDenied</Error>", "")};
  auto s = f.store->Put(".cvmfspublished", "m");
  ASSERT_FALSE(s.ok());
  EXPECT_EQ(s.code(), cvmfs::Status::Code::kPermission);
  EXPECT_NE(s.ToString().find("repo.test/.cvmfspublished"), std::string::npos);
  EXPECT_TRUE(f.sleeps.empty());
}

TEST(S3ObjectStoreTest, ListObjectsFollowsContinuationTokens) {
  Fixture f;
  std::vector<std::string> want;
  for (int i = 0; i < 5; ++i) {
    std::string name = "data/0" + std::to_string(i) + "/obj";
    ASSERT_TRUE(f.store->Put(name, "x").ok());
    want.push_back(name);
  }
  f.s3->objects["other.repo/data/00/obj"] = "y";  // another prefix
  ASSERT_TRUE(f.store->Put(".cvmfspublished", "m").ok());
  auto names = f.store->ListObjects();
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  EXPECT_EQ(*names, want);
}

TEST(S3ObjectStoreTest, PutFileSendsTheFileNotItsBytesInMemory) {
  Fixture f;
  cvmfs::testing::TempDir dir;
  const std::string file = dir.path() + "/catalog";
  ASSERT_TRUE(cvmfs::WriteFileAtomic(file, "catalog bytes").ok());
  ASSERT_TRUE(f.store->PutFile("data/ab/cdC", file).ok());
  EXPECT_EQ(f.s3->objects["repo.test/data/ab/cdC"], "catalog bytes");
  EXPECT_EQ(f.s3->log.back().body_file, file);
  EXPECT_TRUE(f.s3->log.back().body.empty());
  EXPECT_TRUE(cvmfs::PathExists(file));  // the caller's to remove
  // An existing data object is not sent again; a missing file is an error
  // that no retry mends.
  size_t before = f.s3->log.size();
  ASSERT_TRUE(f.store->PutFile("data/ab/cdC", file).ok());
  ASSERT_EQ(f.s3->log.size(), before + 1);
  EXPECT_EQ(f.s3->log.back().method, S3Request::Method::kHead);
  auto missing = f.store->PutFile("data/ab/efC", dir.path() + "/none");
  EXPECT_FALSE(missing.ok());
  EXPECT_TRUE(f.sleeps.empty());
}

TEST(S3ObjectStoreTest, ReadToStreamsInPieces) {
  Fixture f;
  const std::string bytes = "0123456789abcdef";
  ASSERT_TRUE(f.store->Put("data/ab/cd", bytes).ok());
  std::vector<std::string> pieces;
  auto s = f.store->ReadTo("data/ab/cd", [&](const char* d, size_t n) {
    pieces.emplace_back(d, n);
    return cvmfs::Status::Ok();
  });
  ASSERT_TRUE(s.ok()) << s.ToString();
  EXPECT_EQ(pieces.size(), 6u);  // 3 bytes at a time
  std::string joined;
  for (const auto& p : pieces) joined += p;
  EXPECT_EQ(joined, bytes);
  auto none = f.store->ReadTo(
      "data/ab/ef", [](const char*, size_t) { return cvmfs::Status::Ok(); });
  EXPECT_TRUE(none.IsNotFound()) << none.ToString();
}

TEST(S3ObjectStoreTest, ReadToStopsWhenTheSinkFails) {
  Fixture f;
  ASSERT_TRUE(f.store->Put("data/ab/cd", std::string(30, 'x')).ok());
  size_t calls = 0;
  auto s = f.store->ReadTo("data/ab/cd", [&](const char*, size_t) {
    return ++calls == 2 ? cvmfs::Status::NoSpace("cache full")
                        : cvmfs::Status::Ok();
  });
  EXPECT_EQ(s.code(), cvmfs::Status::Code::kNoSpace) << s.ToString();
  EXPECT_EQ(calls, 2u);
  EXPECT_TRUE(f.sleeps.empty());
}

TEST(S3ObjectStoreTest, ReadToRetriesOnlyBeforeTheFirstByte) {
  Fixture f;
  ASSERT_TRUE(f.store->Put("data/ab/cd", "whole").ok());
  std::string got;
  auto sink = [&](const char* d, size_t n) {
    got.append(d, n);
    return cvmfs::Status::Ok();
  };
  // No answer at all: retried, and the object arrives once.
  f.s3->faults = {Answer(0, "", "Connection refused")};
  ASSERT_TRUE(f.store->ReadTo("data/ab/cd", sink).ok());
  EXPECT_EQ(got, "whole");
  EXPECT_EQ(f.sleeps.size(), 1u);
  // Broken after 6 bytes reached the sink: those cannot be taken back.
  got.clear();
  f.s3->faults = {Answer(0, "partia", "Connection reset")};
  auto s = f.store->ReadTo("data/ab/cd", sink);
  ASSERT_FALSE(s.ok());
  EXPECT_NE(s.ToString().find("interrupted after 6 bytes"), std::string::npos)
      << s.ToString();
  EXPECT_EQ(f.sleeps.size(), 1u);
}

TEST(S3ObjectStoreTest, ParsesListPages) {
  auto page = ParseListObjectsV2(
      "<?xml version=\"1.0\"?><ListBucketResult><Contents><Key>a&amp;b</Key>"
      "</Contents><IsTruncated>true</IsTruncated>"
      "<NextContinuationToken>t/1=</NextContinuationToken></ListBucketResult>");
  ASSERT_TRUE(page.ok());
  EXPECT_EQ(page->keys, std::vector<std::string>{"a&b"});
  EXPECT_EQ(page->next_token, "t/1=");
  EXPECT_FALSE(ParseListObjectsV2("<Error/>").ok());
  EXPECT_FALSE(
      ParseListObjectsV2("<ListBucketResult><IsTruncated>true</IsTruncated>"
                         "</ListBucketResult>")
          .ok());
}

}  // namespace
}  // namespace publisher
