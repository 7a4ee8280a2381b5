#include "client/client_settings.h"

#include <gtest/gtest.h>
#include <sys/utsname.h>

#include "client/known_parameters.h"
#include "cvmfs/config/option_reader.h"
#include "cvmfs/config/url_lists.h"
#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs {
namespace {

using Groups = std::vector<std::vector<std::string>>;
constexpr char kFqrn[] = "atlas.cern.ch";

// A CVMFS_ROOTDIR holding the minimum a mount needs (a proxy, a server and
// a key) unless a test removes it again.
class ClientSettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(MakeDirs(paths_.KeysDir()).ok());
    ASSERT_TRUE(WriteFileAtomic(Key("b.pub"), "key").ok());
    ASSERT_TRUE(WriteFileAtomic(Key("a.pub"), "key").ok());
    ASSERT_TRUE(WriteFileAtomic(Key("readme.txt"), "not a key").ok());
    opts_.Set("CVMFS_HTTP_PROXY", "DIRECT", "test");
    opts_.Set("CVMFS_SERVER_URL", "http://s1/cvmfs/@fqrn@", "test");
  }
  std::string Key(const std::string& name) const {
    return JoinPath(paths_.KeysDir(), name);
  }
  Result<ClientSettings> Settings() const {
    return ClientSettings::FromOptions(opts_, kFqrn, paths_);
  }
  // The error message of FromOptions with `name`=`value` from "test.conf";
  // the options are left as they were.
  std::string ErrorFor(const std::string& name, const std::string& value) {
    const OptionsManager before = opts_;
    opts_.Set(name, value, "test.conf");
    auto s = Settings();
    opts_ = before;
    EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument)
        << name << "=" << value;
    return s.status().message();
  }

  testing::TempDir tmp_;
  SystemPaths paths_{tmp_.path()};
  OptionsManager opts_;
};

TEST_F(ClientSettingsTest, Defaults) {
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->fqrn, "atlas.cern.ch");
  EXPECT_EQ(s->org, "atlas");
  EXPECT_EQ(s->fallback_proxy_groups, Groups{});
  EXPECT_EQ(s->timeout_s, 5);
  EXPECT_EQ(s->timeout_direct_s, 10);
  EXPECT_EQ(s->low_speed_limit, 1024);
  EXPECT_EQ(s->max_retries, 1);
  EXPECT_EQ(s->backoff_init_s, 2);
  EXPECT_EQ(s->backoff_max_s, 10);
  EXPECT_EQ(s->proxy_reset_after_s, 300);
  EXPECT_EQ(s->host_reset_after_s, 1800);
  EXPECT_EQ(s->max_connections, 16);
  EXPECT_TRUE(s->prefetch);
  EXPECT_EQ(s->prefetch_files, 4096);
  EXPECT_EQ(s->prefetch_budget_mb, 32);
  EXPECT_EQ(s->prefetch_parallel, 8);
  EXPECT_EQ(s->cache_base, tmp_.path() + "/var/lib/cvmfs");
  EXPECT_TRUE(s->shared_cache);
  EXPECT_EQ(s->CacheDir(), tmp_.path() + "/var/lib/cvmfs/shared");
  EXPECT_EQ(s->quota_limit_mb, 4000);
  EXPECT_EQ(s->keys_dir, paths_.KeysDir());
  EXPECT_EQ(s->public_keys,
            (std::vector<std::string>{Key("a.pub"), Key("b.pub")}));
  EXPECT_EQ(s->kcache_timeout_s, 60);
  EXPECT_EQ(s->statfs_cache_timeout_s, 0);
  EXPECT_TRUE(s->claim_ownership);
  EXPECT_TRUE(s->check_permissions);
  EXPECT_FALSE(s->hide_magic_xattrs);
  EXPECT_EQ(s->magic_xattrs_visibility,
            client::MagicXattrsVisibility::kRootOnly);
  EXPECT_FALSE(s->enforce_acls);
  EXPECT_EQ(s->nfiles, 131072);
  EXPECT_EQ(s->max_ttl_min, 0);
  EXPECT_TRUE(s->auto_update);
  EXPECT_FALSE(s->repository_tag);
  EXPECT_FALSE(s->repository_date);
  EXPECT_FALSE(s->root_hash);
  EXPECT_EQ(s->debuglog, "");
  utsname u;
  ASSERT_EQ(uname(&u), 0);
  EXPECT_EQ(s->arch, u.machine);
  EXPECT_EQ(s->user, "cvmfs");
  EXPECT_TRUE(s->warnings.empty());
}

TEST_F(ClientSettingsTest, ReadsEveryTypedParameter) {
  const std::pair<const char*, const char*> values[] = {
      {"CVMFS_TIMEOUT", "7"},
      {"CVMFS_TIMEOUT_DIRECT", "8"},
      {"CVMFS_LOW_SPEED_LIMIT", "0"},
      {"CVMFS_MAX_RETRIES", "3"},
      {"CVMFS_BACKOFF_INIT", "1"},
      {"CVMFS_BACKOFF_MAX", "20"},
      {"CVMFS_PROXY_RESET_AFTER", "0"},
      {"CVMFS_HOST_RESET_AFTER", "60"},
      {"CVMFS_MAX_CONNECTIONS", "1024"},
      {"CVMFS_METADATA_DEADLINE", "30"},
      {"CVMFS_PREFETCH", "off"},
      {"CVMFS_PREFETCH_FILES", "2000"},
      {"CVMFS_PREFETCH_BUDGET", "256"},
      {"CVMFS_PREFETCH_PARALLEL", "512"},
      {"CVMFS_PREFETCH_SPECULATE_MS", "0"},
      {"CVMFS_CACHE_BASE", "/scratch/cvmfs/"},
      {"CVMFS_SHARED_CACHE", "no"},
      {"CVMFS_QUOTA_LIMIT", "-1"},
      {"CVMFS_KCACHE_TIMEOUT", "0"},
      {"CVMFS_STATFS_CACHE_TIMEOUT", "5"},
      {"CVMFS_CLAIM_OWNERSHIP", "off"},
      {"CVMFS_CHECK_PERMISSIONS", "false"},
      {"CVMFS_HIDE_MAGIC_XATTRS", "YES"},
      {"CVMFS_NFILES", "65536"},
      {"CVMFS_MAX_TTL", "15"},
      {"CVMFS_DEBUGLOG", "/tmp/cvmfs.log"},
      {"CVMFS_ARCH", "riscv64"},
      {"CVMFS_USER", "nobody"},
  };
  for (const auto& [name, value] : values) opts_.Set(name, value, "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->timeout_s, 7);
  EXPECT_EQ(s->timeout_direct_s, 8);
  EXPECT_EQ(s->low_speed_limit, 0);
  EXPECT_EQ(s->max_retries, 3);
  EXPECT_EQ(s->backoff_init_s, 1);
  EXPECT_EQ(s->backoff_max_s, 20);
  EXPECT_EQ(s->proxy_reset_after_s, 0);
  EXPECT_EQ(s->host_reset_after_s, 60);
  EXPECT_EQ(s->max_connections, 1024);
  EXPECT_EQ(s->metadata_deadline_s, 30);
  EXPECT_FALSE(s->prefetch);
  EXPECT_EQ(s->prefetch_files, 2000);
  EXPECT_EQ(s->prefetch_budget_mb, 256);
  EXPECT_EQ(s->prefetch_parallel, 512);
  EXPECT_EQ(s->prefetch_speculate_ms, 0);
  EXPECT_EQ(s->cache_base, "/scratch/cvmfs");
  EXPECT_FALSE(s->shared_cache);
  EXPECT_EQ(s->CacheDir(), "/scratch/cvmfs/atlas.cern.ch");
  EXPECT_EQ(s->quota_limit_mb, -1);
  EXPECT_EQ(s->kcache_timeout_s, 0);
  EXPECT_EQ(s->statfs_cache_timeout_s, 5);
  EXPECT_FALSE(s->claim_ownership);
  EXPECT_FALSE(s->check_permissions);
  EXPECT_TRUE(s->hide_magic_xattrs);
  EXPECT_EQ(s->magic_xattrs_visibility, client::MagicXattrsVisibility::kNever);
  EXPECT_EQ(s->nfiles, 65536);
  EXPECT_EQ(s->max_ttl_min, 15);
  EXPECT_EQ(s->debuglog, "/tmp/cvmfs.log");
  EXPECT_EQ(s->arch, "riscv64");
  EXPECT_EQ(s->user, "nobody");
}

TEST_F(ClientSettingsTest, PrefetchLeavesHalfTheConnectionsToDemandReads) {
  EXPECT_EQ(ErrorFor("CVMFS_PREFETCH_PARALLEL", "9"),
            "CVMFS_PREFETCH_PARALLEL='9' (from test.conf): expected "
            "transfers, at most half of CVMFS_MAX_CONNECTIONS (16), so that "
            "demand reads always find a connection");
  // The default follows a smaller CVMFS_MAX_CONNECTIONS.
  opts_.Set("CVMFS_MAX_CONNECTIONS", "6", "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->prefetch_parallel, 3);
}

// Unset, the deadline of metadata downloads follows the timeouts.
TEST_F(ClientSettingsTest, MetadataDeadlineFollowsTheTimeouts) {
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->metadata_deadline_s, 120);  // 12 x CVMFS_TIMEOUT_DIRECT=10
  opts_.Set("CVMFS_TIMEOUT", "30", "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->metadata_deadline_s, 360);
  opts_.Set("CVMFS_METADATA_DEADLINE", "0", "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->metadata_deadline_s, 0);
  EXPECT_EQ(ErrorFor("CVMFS_METADATA_DEADLINE", "2m"),
            "CVMFS_METADATA_DEADLINE='2m' (from test.conf): expected seconds "
            "(0: no limit) (a whole number from 0 to 86400)");
}

TEST_F(ClientSettingsTest, GeoApiAndProxyTemplate) {
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_FALSE(s->use_geoapi);
  EXPECT_EQ("", s->proxy_template);
  opts_.Set("CVMFS_USE_GEOAPI", "yes", "test");
  opts_.Set("CVMFS_PROXY_TEMPLATE", "site-squids.example.org", "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_TRUE(s->use_geoapi);
  EXPECT_EQ("site-squids.example.org", s->proxy_template);
  EXPECT_NE(std::string::npos,
            ErrorFor("CVMFS_USE_GEOAPI", "sometimes").find("CVMFS_USE_GEOAPI"));
  EXPECT_EQ(0, s->max_servers);
  opts_.Set("CVMFS_MAX_SERVERS", "2", "test");
  EXPECT_EQ(2, Settings()->max_servers);
  ErrorFor("CVMFS_MAX_SERVERS", "-1");
  ErrorFor("CVMFS_MAX_SERVERS", "two");
  EXPECT_EQ(ErrorFor("CVMFS_PROXY_TEMPLATE", "a/b"),
            "CVMFS_PROXY_TEMPLATE='a/b' (from test.conf): expected a name for "
            "Geo-API requests (letters, digits, '.', ':', '_', '-')");
}

TEST_F(ClientSettingsTest, EmptyValueMeansDefault) {
  opts_.Set("CVMFS_QUOTA_LIMIT", "", "test");
  opts_.Set("CVMFS_SHARED_CACHE", "", "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->quota_limit_mb, 4000);
  EXPECT_TRUE(s->shared_cache);
}

TEST(ParseBooleanTest, AcceptsCvmfsSpellings) {
  for (const char* on :
       {"yes", "YES", "on", "On", "true", "TRUE", "1", " yes "})
    EXPECT_EQ(ParseBoolean(on), true) << on;
  for (const char* off : {"no", "No", "off", "OFF", "false", "False", "0"})
    EXPECT_EQ(ParseBoolean(off), false) << off;
  for (const char* junk : {"", "y", "n", "2", "yess", "enabled"})
    EXPECT_FALSE(ParseBoolean(junk)) << junk;
}

TEST_F(ClientSettingsTest, QuotaErrorNamesValueSourceAndRemedy) {
  EXPECT_EQ(ErrorFor("CVMFS_QUOTA_LIMIT", "abc"),
            "CVMFS_QUOTA_LIMIT='abc' (from test.conf): expected megabytes (a "
            "number, or -1 for unmanaged)");
  ErrorFor("CVMFS_QUOTA_LIMIT", "0");
  ErrorFor("CVMFS_QUOTA_LIMIT", "-2");
  ErrorFor("CVMFS_QUOTA_LIMIT", "4000MB");
  ErrorFor("CVMFS_QUOTA_LIMIT", "99999999999999999999999");
}

TEST_F(ClientSettingsTest, MalformedValuesOfEveryKind) {
  EXPECT_EQ(ErrorFor("CVMFS_SHARED_CACHE", "maybe"),
            "CVMFS_SHARED_CACHE='maybe' (from test.conf): expected yes or no "
            "(also on/off, true/false, 1/0)");
  EXPECT_EQ(ErrorFor("CVMFS_TIMEOUT", "5s"),
            "CVMFS_TIMEOUT='5s' (from test.conf): expected seconds (a whole "
            "number from 1 to 3600)");
  const std::pair<const char*, const char*> bad[] = {
      {"CVMFS_TIMEOUT", "0"},
      {"CVMFS_TIMEOUT_DIRECT", "-1"},
      {"CVMFS_LOW_SPEED_LIMIT", "1k"},
      {"CVMFS_MAX_RETRIES", "1.5"},
      {"CVMFS_BACKOFF_INIT", "x"},
      {"CVMFS_PROXY_RESET_AFTER", "-5"},
      {"CVMFS_HOST_RESET_AFTER", "1e3"},
      {"CVMFS_MAX_CONNECTIONS", "0"},
      {"CVMFS_MAX_CONNECTIONS", "1025"},
      {"CVMFS_PREFETCH", "maybe"},
      {"CVMFS_PREFETCH_FILES", "-1"},
      {"CVMFS_PREFETCH_FILES", "65537"},
      {"CVMFS_PREFETCH_BUDGET", "0"},
      {"CVMFS_PREFETCH_BUDGET", "32MB"},
      {"CVMFS_PREFETCH_PARALLEL", "0"},
      {"CVMFS_PREFETCH_PARALLEL", "65"},
      {"CVMFS_PREFETCH_SPECULATE_MS", "-1"},
      {"CVMFS_KCACHE_TIMEOUT", "soon"},
      {"CVMFS_STATFS_CACHE_TIMEOUT", "-1"},
      {"CVMFS_NFILES", "0"},
      {"CVMFS_MAX_TTL", "-1"},
      {"CVMFS_CLAIM_OWNERSHIP", "si"},
      {"CVMFS_CHECK_PERMISSIONS", "2"},
      {"CVMFS_HIDE_MAGIC_XATTRS", "y"},
      {"CVMFS_MAGIC_XATTRS_VISIBILITY", "root"},
      {"CVMFS_ENFORCE_ACLS", "maybe"},
      {"CVMFS_AUTO_UPDATE", "nope"},
      {"CVMFS_CACHE_BASE", "var/lib/cvmfs"},
      {"CVMFS_DEBUGLOG", "debug.log"},
      {"CVMFS_REPOSITORY_DATE", "2007-03-01"},
      {"CVMFS_REPOSITORY_DATE", "2007-13-01T13:00:00Z"},
      {"CVMFS_ROOT_HASH", "not-a-hash"},
      {"CVMFS_NOTIFICATION_SERVER", "gateway:4929/api/v1"},
  };
  for (const auto& [name, value] : bad) {
    SCOPED_TRACE(std::string(name) + "=" + value);
    std::string message = ErrorFor(name, value);
    EXPECT_EQ(message.rfind(std::string(name) + "='" + value +
                                "' (from test.conf): expected ",
                            0),
              0u)
        << message;
  }
}

TEST_F(ClientSettingsTest, BackoffMaxMustNotBeBelowInit) {
  opts_.Set("CVMFS_BACKOFF_INIT", "5", "test");
  EXPECT_NE(ErrorFor("CVMFS_BACKOFF_MAX", "4")
                .find("at least CVMFS_BACKOFF_INIT (5)"),
            std::string::npos);
}

TEST_F(ClientSettingsTest, EnforceAclsNeedsPermissionChecks) {
  opts_.Set("CVMFS_ENFORCE_ACLS", "yes", "test");
  EXPECT_NE(
      ErrorFor("CVMFS_CHECK_PERMISSIONS", "no")
          .find("CVMFS_ENFORCE_ACLS=yes needs CVMFS_CHECK_PERMISSIONS=yes"),
      std::string::npos);
}

TEST_F(ClientSettingsTest, ServerUrlsAreSplitAndSubstituted) {
  opts_.Set("CVMFS_SERVER_URL",
            " http://s1.cern.ch/cvmfs/@fqrn@/ "
            ";http://s2/@org@/x,https://s3/cvmfs/@fqrn@;;"
            "file:///srv/cvmfs/@fqrn@",
            "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->server_urls,
            (std::vector<std::string>{"http://s1.cern.ch/cvmfs/atlas.cern.ch",
                                      "http://s2/atlas/x",
                                      "https://s3/cvmfs/atlas.cern.ch",
                                      "file:///srv/cvmfs/atlas.cern.ch"}));
}

TEST_F(ClientSettingsTest, ServerUrlErrors) {
  std::string msg = ErrorFor("CVMFS_SERVER_URL", "http://ok;ftp://s2/cvmfs");
  EXPECT_NE(
      msg.find("'ftp://s2/cvmfs' is not an http://, https:// or file:// URL"),
      std::string::npos)
      << msg;
  EXPECT_EQ(
      msg.rfind("CVMFS_SERVER_URL='http://ok;ftp://s2/cvmfs' (from test.conf)",
                0),
      0u);
  ErrorFor("CVMFS_SERVER_URL", "s1.cern.ch/cvmfs/@fqrn@");
  ErrorFor("CVMFS_SERVER_URL", "http://");
  msg = ErrorFor("CVMFS_SERVER_URL", " ; ");
  EXPECT_NE(msg.find("CVMFS_SERVER_URL is not set for atlas.cern.ch"),
            std::string::npos)
      << msg;
}

TEST_F(ClientSettingsTest, ProxyGroups) {
  opts_.Set("CVMFS_HTTP_PROXY",
            "http://p1:3128|http://p2:3128; http://p3:3128 ;DIRECT;", "test");
  opts_.Set("CVMFS_FALLBACK_PROXY", "http://f1:3128|http://f2:3128;DIRECT",
            "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->proxy_groups, (Groups{{"http://p1:3128", "http://p2:3128"},
                                     {"http://p3:3128"},
                                     {"DIRECT"}}));
  EXPECT_EQ(s->fallback_proxy_groups,
            (Groups{{"http://f1:3128", "http://f2:3128"}, {"DIRECT"}}));
}

TEST_F(ClientSettingsTest, AutoProxyAndPacUrls) {
  opts_.Set("CVMFS_HTTP_PROXY", "auto;DIRECT", "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->proxy_groups, (Groups{{"auto"}, {"DIRECT"}}));
  EXPECT_EQ(s->pac_urls, (std::vector<std::string>{"http://wpad/wpad.dat"}));
  opts_.Set("CVMFS_PAC_URLS", "http://127.0.0.1:1/a.pac; auto;file:///p.pac",
            "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->pac_urls, (std::vector<std::string>{"http://127.0.0.1:1/a.pac",
                                                   "auto", "file:///p.pac"}));
  std::string msg = ErrorFor("CVMFS_PAC_URLS", "wpad/wpad.dat");
  EXPECT_NE(msg.find("'wpad/wpad.dat' is none"), std::string::npos) << msg;
  msg = ErrorFor("CVMFS_HTTP_PROXY", "auto|http://p:1");
  EXPECT_NE(msg.find("'auto' must be a group of its own"), std::string::npos)
      << msg;
  msg = ErrorFor("CVMFS_FALLBACK_PROXY", "auto");
  EXPECT_NE(msg.find("without 'auto'"), std::string::npos) << msg;
}

TEST_F(ClientSettingsTest, ProxyNameResolution) {
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->max_ipaddr_per_proxy, 0);
  EXPECT_EQ(s->ipfamily_prefer, 0);
  EXPECT_EQ(s->dns_timeout_s, 3);
  EXPECT_EQ(s->dns_retries, 1);
  EXPECT_EQ(s->dns_min_ttl_s, 60);
  EXPECT_EQ(s->dns_max_ttl_s, 86400);
  opts_.Set("CVMFS_MAX_IPADDR_PER_PROXY", "2", "test");
  opts_.Set("CVMFS_IPFAMILY_PREFER", "6", "test");
  opts_.Set("CVMFS_DNS_TIMEOUT", "1", "test");
  opts_.Set("CVMFS_DNS_RETRIES", "0", "test");
  opts_.Set("CVMFS_DNS_MIN_TTL", "10", "test");
  opts_.Set("CVMFS_DNS_MAX_TTL", "20", "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->max_ipaddr_per_proxy, 2);
  EXPECT_EQ(s->ipfamily_prefer, 6);
  EXPECT_EQ(s->dns_timeout_s, 1);
  EXPECT_EQ(s->dns_retries, 0);
  EXPECT_EQ(s->dns_min_ttl_s, 10);
  EXPECT_EQ(s->dns_max_ttl_s, 20);
  ErrorFor("CVMFS_IPFAMILY_PREFER", "5");
  ErrorFor("CVMFS_MAX_IPADDR_PER_PROXY", "-1");
  ErrorFor("CVMFS_DNS_TIMEOUT", "0");
  std::string msg = ErrorFor("CVMFS_DNS_MAX_TTL", "5");
  EXPECT_NE(msg.find("at least CVMFS_DNS_MIN_TTL"), std::string::npos) << msg;
}

TEST_F(ClientSettingsTest, ProxyErrors) {
  std::string msg = ErrorFor("CVMFS_HTTP_PROXY", "http://p1:3128|squid:3128");
  EXPECT_NE(msg.find("proxy 'squid:3128' is neither DIRECT, auto nor an "
                     "http://host:port URL"),
            std::string::npos)
      << msg;
  ErrorFor("CVMFS_HTTP_PROXY", "direct");
  ErrorFor("CVMFS_FALLBACK_PROXY", "ftp://p");
  for (const char* empty : {"", ";", " | ; "}) {
    msg = ErrorFor("CVMFS_HTTP_PROXY", empty);
    EXPECT_NE(msg.find("CVMFS_HTTP_PROXY is not set"), std::string::npos)
        << msg;
    EXPECT_NE(msg.find("DIRECT"), std::string::npos) << msg;
  }
}

TEST_F(ClientSettingsTest, KeysFromDomainDirectoryWhenItExists) {
  const std::string domain_dir = JoinPath(paths_.KeysDir(), "cern.ch");
  ASSERT_TRUE(MakeDirs(domain_dir).ok());
  ASSERT_TRUE(WriteFileAtomic(domain_dir + "/cern.ch.pub", "key").ok());
  ASSERT_TRUE(WriteFileAtomic(domain_dir + "/cern-it1.pub", "key").ok());
  ASSERT_TRUE(MakeDirs(domain_dir + "/dir.pub").ok());
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->keys_dir, domain_dir);
  EXPECT_EQ(s->public_keys,
            (std::vector<std::string>{domain_dir + "/cern-it1.pub",
                                      domain_dir + "/cern.ch.pub"}));
}

TEST_F(ClientSettingsTest, ExplicitKeysDirAndPublicKeyList) {
  const std::string other = tmp_.Sub("other-keys");
  ASSERT_TRUE(MakeDirs(other).ok());
  ASSERT_TRUE(WriteFileAtomic(other + "/x.pub", "key").ok());
  opts_.Set("CVMFS_KEYS_DIR", other, "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->public_keys, std::vector<std::string>{other + "/x.pub"});

  // CVMFS_PUBLIC_KEY wins over CVMFS_KEYS_DIR (as in the CVMFS code).
  opts_.Set("CVMFS_PUBLIC_KEY", Key("b.pub") + "::" + other + "/x.pub", "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->public_keys,
            (std::vector<std::string>{Key("b.pub"), other + "/x.pub"}));

  std::string msg =
      ErrorFor("CVMFS_PUBLIC_KEY", Key("b.pub") + ":" + Key("gone.pub"));
  EXPECT_NE(msg.find("'" + Key("gone.pub") + "' is no file"), std::string::npos)
      << msg;
}

TEST_F(ClientSettingsTest, NoPublicKeyNamesWhereItLooked) {
  const std::string empty = tmp_.Sub("empty-keys");
  ASSERT_TRUE(MakeDirs(empty).ok());
  std::string msg = ErrorFor("CVMFS_KEYS_DIR", empty);
  EXPECT_NE(msg.find("no *.pub file in " + empty), std::string::npos) << msg;
  msg = ErrorFor("CVMFS_KEYS_DIR", tmp_.Sub("missing"));
  EXPECT_NE(msg.find(tmp_.Sub("missing")), std::string::npos) << msg;
}

TEST_F(ClientSettingsTest, PinsDisableAutomaticUpdates) {
  opts_.Set("CVMFS_REPOSITORY_TAG", "v1.0", "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->repository_tag, "v1.0");
  EXPECT_FALSE(s->auto_update);

  opts_ = OptionsManager();
  SetUp();
  opts_.Set("CVMFS_REPOSITORY_DATE", "2007-03-01T13:00:00Z", "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->repository_date, 1172754000);
  EXPECT_FALSE(s->auto_update);

  opts_.Set("CVMFS_REPOSITORY_DATE", "", "test");
  const std::string hash = "0123456789abcdef0123456789abcdef01234567";
  opts_.Set("CVMFS_ROOT_HASH", hash, "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_TRUE(s->root_hash);
  EXPECT_EQ(s->root_hash->ToString(), hash);
  EXPECT_FALSE(s->auto_update);
}

TEST_F(ClientSettingsTest, AutoUpdateCanBeSwitchedOff) {
  opts_.Set("CVMFS_AUTO_UPDATE", "no", "test");
  auto s = Settings();
  ASSERT_TRUE(s.ok());
  EXPECT_FALSE(s->auto_update);
}

TEST_F(ClientSettingsTest, UnknownCvmfsNamesWarnWithSuggestion) {
  opts_.Set("CVMFS_QUOTA_LIMT", "1000", "/etc/cvmfs/default.local");
  opts_.Set("CVMFS_TOTALLY_UNRELATED_THING", "1", "x.conf");
  opts_.Set("CMS_LOCAL_SITE", "T2_CH_CERN", "x.conf");  // not ours to judge
  opts_.Set("CVMFS_NFS_SOURCE", "no", "x.conf");
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  ASSERT_EQ(s->warnings.size(), 2u);
  EXPECT_EQ(
      s->warnings[0],
      "CVMFS_QUOTA_LIMT (from /etc/cvmfs/default.local) is not a CVMFS client "
      "parameter and is ignored; did you mean CVMFS_QUOTA_LIMIT?");
  EXPECT_EQ(s->warnings[1],
            "CVMFS_TOTALLY_UNRELATED_THING (from x.conf) is not a CVMFS client "
            "parameter and is ignored");
  EXPECT_EQ(s->quota_limit_mb, 4000);
}

TEST_F(ClientSettingsTest, RefusedParameterFailsTheMount) {
  opts_.Set("CVMFS_NFS_SOURCE", "no", "default.conf");  // CVMFS's default
  ASSERT_TRUE(Settings().ok()) << Settings().status().ToString();
  opts_.Set("CVMFS_NFS_SOURCE", "yes", "default.local");
  auto s = Settings();
  ASSERT_EQ(s.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("CVMFS_NFS_SOURCE='yes' (from "
                                      "default.local) is not supported"),
            std::string::npos)
      << s.status().message();
}

TEST_F(ClientSettingsTest, AlienCacheNeedsUnmanagedPrivateCache) {
  opts_.Set("CVMFS_ALIEN_CACHE", "/cluster/cvmfs-alien/", "site.local");
  auto s = Settings();
  ASSERT_EQ(s.status().code(), Status::Code::kInvalidArgument);
  EXPECT_NE(s.status().message().find("needs CVMFS_QUOTA_LIMIT=-1 (is 4000) "
                                      "and CVMFS_SHARED_CACHE=no (is yes)"),
            std::string::npos)
      << s.status().message();
  opts_.Set("CVMFS_QUOTA_LIMIT", "-1", "site.local");
  EXPECT_FALSE(Settings().ok());  // still shared
  opts_.Set("CVMFS_SHARED_CACHE", "no", "site.local");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ("/cluster/cvmfs-alien", s->ObjectCacheDir());
  EXPECT_EQ(s->cache_base + "/" + kFqrn, s->CacheDir());
  opts_.Set("CVMFS_ALIEN_CACHE", "relative/dir", "site.local");
  EXPECT_FALSE(Settings().ok());
}

TEST_F(ClientSettingsTest, KnownParameterTableCoversSpecAndOurs) {
  for (const char* name :
       {"CVMFS_HTTP_PROXY", "CVMFS_SERVER_URL", "CVMFS_QUOTA_LIMIT",
        "CVMFS_MAX_CONNECTIONS", "CVMFS_ALIEN_CACHE", "CVMFS_UID_MAP",
        "CVMFS_WORLD_READABLE", "CVMFS_USYSLOG", "CVMFS_CACHE_PRIMARY",
        "CVMFS_CACHE_ram_LOWER_READONLY", "CVMFS_CLIENT_PROFILE",
        "CVMFS_PREFETCH", "CVMFS_PREFETCH_BUDGET", "CVMFS_PREFETCH_FILES",
        "CVMFS_PREFETCH_PARALLEL", "CVMFS_PREFETCH_SPECULATE_MS",
        "CVMFS_METADATA_DEADLINE"}) {
    EXPECT_TRUE(IsKnownClientParameter(name)) << name;
  }
  for (const char* name :
       {"CVMFS_QUOTA", "CVMFS_CACHE_TYPE", "CVMFS_CACHE__TYPE", "QUOTA_LIMIT"})
    EXPECT_FALSE(IsKnownClientParameter(name)) << name;
}

TEST_F(ClientSettingsTest, EnvironmentForVariantSymlinks) {
  opts_.Set("CMS_LOCAL_SITE", "T2_CH_CERN", "x.conf");
  opts_.Set("CVMFS_ARCH", "aarch64", "x.conf");
  auto s = Settings();
  ASSERT_TRUE(s.ok());
  auto env = s->Environment();
  EXPECT_EQ(env.at("CMS_LOCAL_SITE"), "T2_CH_CERN");
  EXPECT_EQ(env.at("CVMFS_HTTP_PROXY"), "DIRECT");
  EXPECT_EQ(env.at("CVMFS_ARCH"), "aarch64");
  EXPECT_EQ(env.at("CVMFS_FQRN"), "atlas.cern.ch");

  opts_ = OptionsManager();
  SetUp();
  s = Settings();
  ASSERT_TRUE(s.ok());
  EXPECT_EQ(s->Environment().at("CVMFS_ARCH"), s->arch);
}

TEST_F(ClientSettingsTest, RejectsBadRepositoryName) {
  auto s = ClientSettings::FromOptions(opts_, "atlas", paths_);
  EXPECT_EQ(s.status().code(), Status::Code::kInvalidArgument);
}

// The whole path an administrator takes: files under etc/cvmfs, loaded in
// order, then validated; the error names the file the bad value came from.
TEST_F(ClientSettingsTest, FromFilesEndToEnd) {
  opts_ = OptionsManager();
  const std::string etc = paths_.EtcCvmfs();
  ASSERT_TRUE(MakeDirs(etc + "/domain.d").ok());
  ASSERT_TRUE(WriteFileAtomic(etc + "/default.conf",
                              "CVMFS_QUOTA_LIMIT=4000\nCVMFS_HTTP_PROXY=\n")
                  .ok());
  ASSERT_TRUE(
      WriteFileAtomic(
          etc + "/domain.d/cern.ch.conf",
          "CVMFS_SERVER_URL='http://s1/cvmfs/@fqrn@;http://s2/cvmfs/@fqrn@'\n"
          "CVMFS_KEYS_DIR=$CVMFS_ROOTDIR/etc/cvmfs/keys\n")
          .ok());
  ASSERT_TRUE(WriteFileAtomic(etc + "/default.local",
                              "CVMFS_HTTP_PROXY='http://squid:3128;DIRECT'\n"
                              "CVMFS_QUOTA_LIMIT=abc\n")
                  .ok());
  ASSERT_TRUE(opts_.LoadForRepository(paths_, kFqrn).ok());
  auto s = Settings();
  EXPECT_EQ(s.status().message(), "CVMFS_QUOTA_LIMIT='abc' (from " + etc +
                                      "/default.local): expected megabytes (a "
                                      "number, or -1 for unmanaged)");

  opts_.Set("CVMFS_QUOTA_LIMIT", "20000", "command line");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->quota_limit_mb, 20000);
  EXPECT_EQ(s->server_urls,
            (std::vector<std::string>{"http://s1/cvmfs/atlas.cern.ch",
                                      "http://s2/cvmfs/atlas.cern.ch"}));
  EXPECT_EQ(s->proxy_groups, (Groups{{"http://squid:3128"}, {"DIRECT"}}));
  EXPECT_EQ(s->keys_dir, paths_.KeysDir());
}

TEST_F(ClientSettingsTest, SyslogParameters) {
  auto s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->syslog_level, 3);       // LOG_NOTICE, as CVMFS
  EXPECT_EQ(s->syslog_facility, -1);   // LOG_USER
  EXPECT_EQ(s->syslog_prefix, kFqrn);  // CVMFS's default prefix
  opts_.Set("CVMFS_SYSLOG_LEVEL", "1", "test");
  opts_.Set("CVMFS_SYSLOG_FACILITY", "5", "test");
  opts_.Set("CVMFS_SYSLOG_PREFIX", "atlas-prod", "test");
  s = Settings();
  ASSERT_TRUE(s.ok()) << s.status().ToString();
  EXPECT_EQ(s->syslog_level, 1);
  EXPECT_EQ(s->syslog_facility, 5);
  EXPECT_EQ(s->syslog_prefix, "atlas-prod");
  EXPECT_TRUE(s->warnings.empty());
  EXPECT_NE(ErrorFor("CVMFS_SYSLOG_LEVEL", "4").find("CVMFS_SYSLOG_LEVEL='4'"),
            std::string::npos);
  EXPECT_NE(ErrorFor("CVMFS_SYSLOG_FACILITY", "8").find("local"),
            std::string::npos);
}

}  // namespace
}  // namespace cvmfs
