#include "cvmfs/gateway_key.h"

#include <gtest/gtest.h>

namespace cvmfs {
namespace {

TEST(GatewayKeyTest, ParsesKeyFile) {
  auto key = ParseGatewayKey("plain_text key1 s3cr3t\n");
  ASSERT_TRUE(key.ok()) << key.status().ToString();
  EXPECT_EQ(key->id, "key1");
  EXPECT_EQ(key->secret, "s3cr3t");
  EXPECT_FALSE(ParseGatewayKey("").ok());
  EXPECT_FALSE(ParseGatewayKey("plain_text key1").ok());
  EXPECT_FALSE(ParseGatewayKey("rsa key1 secret").ok());
  EXPECT_FALSE(ParseGatewayKey("plain_text a b c").ok());
}

TEST(GatewayKeyTest, HmacIsRfc2202Sha1InHex) {
  // RFC 2202, test case 2.
  EXPECT_EQ(GatewayHmacHex("Jefe", "what do ya want for nothing?"),
            "effcdf6ae5eb2fa2d27416d5f184df9c259a7c79");
}

TEST(GatewayKeyTest, AuthorizationRoundTrip) {
  GatewayKey key{"id1", "secret"};
  std::string header = GatewayAuthorization(key, "body");
  auto sig = ParseGatewayAuthorization(header);
  ASSERT_TRUE(sig.ok()) << sig.status().ToString();
  EXPECT_EQ(sig->key_id, "id1");
  EXPECT_TRUE(GatewayHmacMatches(*sig, "secret", "body"));
  EXPECT_FALSE(GatewayHmacMatches(*sig, "secret", "other body"));
  EXPECT_FALSE(GatewayHmacMatches(*sig, "wrong", "body"));
  EXPECT_FALSE(ParseGatewayAuthorization("nospace").ok());
  EXPECT_FALSE(ParseGatewayAuthorization("id !!!").ok());
}

}  // namespace
}  // namespace cvmfs
