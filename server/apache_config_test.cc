#include "server/apache_config.h"

#include <gtest/gtest.h>

#include "cvmfs/file_util.h"
#include "server/mkfs_configs.h"
#include "testing/test_env.h"

namespace server {
namespace {

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

TEST(ApacheConfigTest, LikeCvmfsMkfs) {
  auto conf =
      ApacheConfigFor("repo.example.org", "/srv/cvmfs/repo.example.org");
  ASSERT_TRUE(conf.ok()) << conf.status().ToString();
  for (const char* line : {
           "Alias /cvmfs/repo.example.org \"/srv/cvmfs/repo.example.org\"\n",
           "<Directory \"/srv/cvmfs/repo.example.org\">\n",
           "Options -MultiViews +FollowSymLinks -Indexes\n",
           "FileETag None\n",
           "Header unset Last-Modified\n",
           "ExpiresActive On\n",
           "<FilesMatch \"^\\.cvmfs\">\n        ForceType "
           "application/x-cvmfs\n",
           "ExpiresByType application/x-cvmfs \"access plus 61 seconds\"\n",
           "ExpiresByType application/json \"access plus 61 seconds\"\n",
           "ExpiresDefault \"access plus 3 days\"\n",
           "ExpiresByType application/octet-stream \"access plus 3 days\"\n",
           "<IfModule !mod_expires.c>\n",
           "<IfModule !mod_headers.c>\n",
       }) {
    EXPECT_TRUE(Contains(*conf, line)) << "missing: " << line << "\n" << *conf;
  }
  EXPECT_TRUE(Contains(*conf, "</Directory>\n"));
}

TEST(ApacheConfigTest, RefusesWhatCannotBeQuoted) {
  EXPECT_FALSE(ApacheConfigFor("repo.org", "relative/dir").ok());
  EXPECT_FALSE(ApacheConfigFor("repo.org", "/srv/\"x").ok());
  EXPECT_FALSE(ApacheConfigFor("repo.org", "/srv/x\nAlias / /").ok());
  EXPECT_FALSE(ApacheConfigFor("a/b", "/srv/x").ok());
  EXPECT_FALSE(ApacheConfigFor("", "/srv/x").ok());
  auto bad = ApacheConfigFor("repo.org", "/srv/\"x");
  EXPECT_TRUE(Contains(bad.status().message(), "/srv/\"x"));
}

TEST(ApacheConfigTest, ExpiresLifetime) {
  EXPECT_EQ(ExpiresLifetime(61), "61 seconds");
  EXPECT_EQ(ExpiresLifetime(259200), "3 days");
  EXPECT_EQ(ExpiresLifetime(86400), "1 day");
  EXPECT_EQ(ExpiresLifetime(90000), "90000 seconds");
}

TEST(ApacheConfigTest, MkfsWritesBothFiles) {
  cvmfs::testing::TempDir tmp;
  cvmfs::SystemPaths paths{tmp.path()};
  auto text = WriteServingConfigs(paths, "repo.example.org");
  ASSERT_TRUE(text.ok()) << text.status().ToString();
  std::string dir = tmp.path() + "/etc/cvmfs/repositories.d/repo.example.org";
  auto apache = cvmfs::ReadFile(dir + "/apache.conf");
  ASSERT_TRUE(apache.ok());
  EXPECT_TRUE(Contains(*apache, "Alias /cvmfs/repo.example.org \"" +
                                    tmp.path() +
                                    "/srv/cvmfs/repo.example.org\""));
  EXPECT_TRUE(cvmfs::PathExists(dir + "/squid.conf"));
  EXPECT_TRUE(Contains(*text, dir + "/apache.conf"));
  EXPECT_TRUE(Contains(*text, "a2enmod expires headers"));
  EXPECT_TRUE(Contains(*text, "a2enconf cvmfs.repo.example.org"));
  EXPECT_TRUE(Contains(
      *text, "/etc/apache2/conf-available/cvmfs.repo.example.org.conf"));

  // An administrator's squid.conf survives; apache.conf is regenerated.
  ASSERT_TRUE(cvmfs::WriteFileAtomic(dir + "/squid.conf", "edited\n").ok());
  ASSERT_TRUE(WriteServingConfigs(paths, "repo.example.org").ok());
  EXPECT_EQ(*cvmfs::ReadFile(dir + "/squid.conf"), "edited\n");
}

}  // namespace
}  // namespace server
