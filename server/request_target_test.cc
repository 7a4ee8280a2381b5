#include "server/request_target.h"

#include <gtest/gtest.h>

namespace server {
namespace {

TEST(RequestTargetTest, OriginForm) {
  EXPECT_EQ(RequestPath("/cvmfs/a.b/.cvmfspublished"),
            "/cvmfs/a.b/.cvmfspublished");
  EXPECT_EQ(RequestPath("/"), "/");
}

TEST(RequestTargetTest, AbsoluteForm) {
  EXPECT_EQ(RequestPath("http://127.0.0.1:8000/cvmfs/a.b/.cvmfspublished"),
            "/cvmfs/a.b/.cvmfspublished");
  EXPECT_EQ(RequestPath("HTTP://Example.ORG/cvmfs/a.b/data/ab/cd"),
            "/cvmfs/a.b/data/ab/cd");
  EXPECT_EQ(RequestPath("https://[::1]:8443/cvmfs/x"), "/cvmfs/x");
  EXPECT_EQ(RequestPath("http://user@host/cvmfs/x"), "/cvmfs/x");
  EXPECT_EQ(RequestPath("http://host:80"), "/");
  // The path is taken as it is; the storage lookup refuses "..".
  EXPECT_EQ(RequestPath("http://h/cvmfs/../etc"), "/cvmfs/../etc");
}

TEST(RequestTargetTest, NotAPath) {
  EXPECT_EQ(RequestPath(""), "");
  EXPECT_EQ(RequestPath("*"), "");
  EXPECT_EQ(RequestPath("host:443"), "");
  EXPECT_EQ(RequestPath("ftp://host/cvmfs/x"), "");
  EXPECT_EQ(RequestPath("http:///cvmfs/x"), "");
  EXPECT_EQ(RequestPath("cvmfs/x"), "");
}

}  // namespace
}  // namespace server
