#include "server/access_log.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <regex>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace server {
namespace {

AccessRecord Record(std::string target, unsigned status, uint64_t bytes) {
  AccessRecord r;
  r.client = "127.0.0.1";
  r.time = 1700000000;
  r.method = "GET";
  r.target = std::move(target);
  r.version = "HTTP/1.1";
  r.status = status;
  r.body_bytes = bytes;
  return r;
}

TEST(AccessLogTest, CommonLogFormat) {
  std::string line =
      FormatCommonLogLine(Record("/cvmfs/x/.cvmfspublished", 200, 612));
  std::regex clf(
      R"(^127\.0\.0\.1 - - \[\d\d/[A-Z][a-z][a-z]/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\] )"
      R"("GET /cvmfs/x/\.cvmfspublished HTTP/1\.1" 200 612\n$)");
  EXPECT_TRUE(std::regex_match(line, clf)) << line;
}

TEST(AccessLogTest, NoBodyIsADash) {
  std::string line = FormatCommonLogLine(Record("/x", 404, 0));
  EXPECT_NE(line.find("\" 404 -\n"), std::string::npos) << line;
}

TEST(AccessLogTest, RequestLineCannotForgeLines) {
  std::string line =
      FormatCommonLogLine(Record("/a\"b\n1.2.3.4 - - forged\x01", 404, 0));
  EXPECT_EQ(line.find('\n'), line.size() - 1) << line;
  EXPECT_NE(line.find(R"(/a\x22b\x0a1.2.3.4 - - forged\x01)"),
            std::string::npos)
      << line;
}

TEST(AccessLogTest, AppendsLines) {
  cvmfs::testing::TempDir tmp;
  std::string path = tmp.Sub("access.log");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(path, "old line\n").ok());
  auto log = AccessLog::Open(path);
  ASSERT_TRUE(log.ok()) << log.status().ToString();
  (*log)->Write(Record("/1", 200, 1));
  (*log)->Write(Record("/2", 206, 2));
  auto text = cvmfs::ReadFile(path);
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->rfind("old line\n", 0), 0u);
  EXPECT_NE(text->find("\"GET /1 HTTP/1.1\" 200 1\n"), std::string::npos);
  EXPECT_NE(text->find("\"GET /2 HTTP/1.1\" 206 2\n"), std::string::npos);
}

TEST(AccessLogTest, OpenErrorNamesThePath) {
  auto log = AccessLog::Open("/nonexistent-dir/access.log");
  ASSERT_FALSE(log.ok());
  EXPECT_NE(log.status().message().find("/nonexistent-dir/access.log"),
            std::string::npos);
}

}  // namespace
}  // namespace server
