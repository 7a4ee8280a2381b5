#include "server/squid_config.h"

#include <gtest/gtest.h>

namespace server {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(SquidConfigTest, Defaults) {
  auto conf = SquidConfigFor(SquidConfigOptions{});
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  for (const char* line : {
           "http_port 3128\n",
           "acl cvmfs_workers src 10.0.0.0/8 172.16.0.0/12 192.168.0.0/16\n",
           "http_access allow cvmfs_workers\nhttp_access deny all\n",
           "maximum_object_size 1024 MB\n",
           "cache_mem 256 MB\n",
           "cache_dir ufs /var/spool/squid 50000 16 256\n",
           "collapsed_forwarding on\n",
           "refresh_pattern . 0 0% 0\n",
       }) {
    EXPECT_TRUE(Contains(*conf, line)) << "missing: " << line << "\n" << *conf;
  }
  // Nothing may override the servers' expiry.
  EXPECT_FALSE(Contains(*conf, "override-expire"));
  EXPECT_FALSE(Contains(*conf, "ignore-reload"));
}

TEST(SquidConfigTest, Options) {
  SquidConfigOptions o;
  o.client_networks = {"192.0.2.0/24", "2001:db8::/32"};
  o.stratum1_hosts = {"s1.example.org", "s1b.example.org"};
  o.port = 8080;
  o.cache_dir = "/data/squid";
  o.cache_dir_mb = 1000;
  o.cache_mem_mb = 64;
  auto conf = SquidConfigFor(o);
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  EXPECT_TRUE(Contains(*conf, "http_port 8080\n"));
  EXPECT_TRUE(
      Contains(*conf, "acl cvmfs_workers src 192.0.2.0/24 2001:db8::/32\n"));
  EXPECT_TRUE(
      Contains(*conf,
               "acl cvmfs_stratum1 dstdomain s1.example.org s1b.example.org\n"
               "http_access allow cvmfs_workers cvmfs_stratum1\n"
               "http_access deny all\n"));
  EXPECT_TRUE(Contains(*conf, "cache_dir ufs /data/squid 1000 16 256\n"));
  EXPECT_TRUE(Contains(*conf, "cache_mem 64 MB\n"));
}

TEST(SquidConfigTest, RefusesInjection) {
  SquidConfigOptions o;
  o.client_networks = {"10.0.0.0/8\nhttp_access allow all"};
  auto conf = SquidConfigFor(o);
  ASSERT_FALSE(conf.ok());
  EXPECT_TRUE(Contains(conf.status().message(), "10.0.0.0/8"));
  o = SquidConfigOptions{};
  o.stratum1_hosts = {"all http_access"};
  EXPECT_FALSE(SquidConfigFor(o).ok());
  o = SquidConfigOptions{};
  o.cache_dir = "/var/spool/my squid";
  EXPECT_FALSE(SquidConfigFor(o).ok());
  o = SquidConfigOptions{};
  o.client_networks.clear();
  EXPECT_FALSE(SquidConfigFor(o).ok());
}

}  // namespace
}  // namespace server
