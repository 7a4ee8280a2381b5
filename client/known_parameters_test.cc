#include "client/known_parameters.h"

#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <sstream>

#include "testing/test_env.h"

namespace cvmfs {
namespace {

// The client parameters of CVMFS's documentation (doc-cvmfs,
// apx-parameters.rst, "Client parameters"), plus the ones CVMFS 2.12 reads
// that the appendix leaves out.
constexpr const char* kCvmfsDocumented[] = {
    "CVMFS_ALIEN_CACHE", "CVMFS_ALT_ROOT_PATH", "CVMFS_AUTO_UPDATE",
    "CVMFS_AUTHZ_HELPER", "CVMFS_AUTHZ_SEARCH_PATH", "CVMFS_BACKOFF_INIT",
    "CVMFS_BACKOFF_MAX", "CVMFS_CATALOG_WATERMARK", "CVMFS_CACHE_BASE",
    "CVMFS_CACHE_REFCOUNT", "CVMFS_CACHE_SYMLINKS", "CVMFS_CHECK_PERMISSIONS",
    "CVMFS_CLAIM_OWNERSHIP", "CVMFS_CPU_AFFINITY", "CVMFS_DEBUGLOG",
    "CVMFS_DEFAULT_DOMAIN", "CVMFS_DNS_MIN_TTL", "CVMFS_DNS_MAX_TTL",
    "CVMFS_DNS_RETRIES", "CVMFS_DNS_TIMEOUT", "CVMFS_DNS_ROAMING",
    "CVMFS_ENFORCE_ACLS", "CVMFS_EXTERNAL_FALLBACK_PROXY",
    "CVMFS_EXTERNAL_HTTP_PROXY", "CVMFS_EXTERNAL_MAX_SERVERS",
    "CVMFS_EXTERNAL_METALINK", "CVMFS_EXTERNAL_TIMEOUT",
    "CVMFS_EXTERNAL_TIMEOUT_DIRECT", "CVMFS_EXTERNAL_URL",
    "CVMFS_FALLBACK_PROXY", "CVMFS_FOLLOW_REDIRECTS", "CVMFS_HIDE_MAGIC_XATTRS",
    "CVMFS_HOST_RESET_AFTER", "CVMFS_HTTP_PROXY", "CVMFS_HTTP_TRACING",
    "CVMFS_HTTP_TRACING_HEADERS", "CVMFS_IGNORE_SIGNATURE",
    "CVMFS_INITIAL_GENERATION", "CVMFS_INSTRUMENT_FUSE",
    "CVMFS_NFS_INTERLEAVED_INODES", "CVMFS_INFLUX_EXTRA_FIELDS",
    "CVMFS_INFLUX_EXTRA_TAGS", "CVMFS_INFLUX_HOST", "CVMFS_INFLUX_METRIC_NAME",
    "CVMFS_INFLUX_PORT", "CVMFS_IPFAMILY_PREFER", "CVMFS_KCACHE_TIMEOUT",
    "CVMFS_KEYS_DIR", "CVMFS_LOW_SPEED_LIMIT", "CVMFS_MAX_EXTERNAL_SERVERS",
    "CVMFS_MAX_IPADDR_PER_PROXY", "CVMFS_MAX_RETRIES", "CVMFS_MAX_SERVERS",
    "CVMFS_MAX_TTL", "CVMFS_MEMCACHE_SIZE", "CVMFS_MOUNT_RW", "CVMFS_NFILES",
    "CVMFS_NFS_SOURCE", "CVMFS_NFS_SHARED", "CVMFS_PAC_URLS",
    "CVMFS_OOM_SCORE_ADJ", "CVMFS_PROXY_RESET_AFTER", "CVMFS_PROXY_SHARD",
    "CVMFS_PROXY_TEMPLATE", "CVMFS_PUBLIC_KEY", "CVMFS_QUOTA_LIMIT",
    "CVMFS_RELOAD_SOCKETS", "CVMFS_REPOSITORIES", "CVMFS_REPOSITORY_DATE",
    "CVMFS_REPOSITORY_TAG", "CVMFS_CONFIG_REPO_REQUIRED", "CVMFS_ROOT_HASH",
    "CVMFS_SEND_INFO_HEADER", "CVMFS_SERVER_CACHE_MODE", "CVMFS_SERVER_URL",
    "CVMFS_SHARED_CACHE", "CVMFS_STATFS_CACHE_TIMEOUT", "CVMFS_STRICT_MOUNT",
    "CVMFS_SUID", "CVMFS_SYSLOG_FACILITY", "CVMFS_SYSLOG_LEVEL",
    "CVMFS_SYSTEMD_NOKILL", "CVMFS_TELEMETRY_RATE", "CVMFS_TELEMETRY_SEND",
    "CVMFS_TIMEOUT", "CVMFS_TIMEOUT_DIRECT", "CVMFS_TRACEFILE",
    "CVMFS_USE_GEOAPI", "CVMFS_USE_SSL_SYSTEM_CA", "CVMFS_USER",
    "CVMFS_USYSLOG", "CVMFS_XATTR_PRIVILEGED_GIDS",
    "CVMFS_XATTR_PROTECTED_XATTRS", "CVMFS_WORKSPACE",
    // read by CVMFS 2.12 but not in the appendix
    "CVMFS_CONFIG_REPOSITORY", "CVMFS_MAGIC_XATTRS_VISIBILITY",
    "CVMFS_METALINK_URL", "CVMFS_MOUNT_DIR", "CVMFS_STREAMING_CACHE",
    "CVMFS_FUSE_NOTIFY_INVALIDATION", "CVMFS_UID_MAP", "CVMFS_GID_MAP",
    "CVMFS_WORLD_READABLE", "CVMFS_SYSLOG_PREFIX", "CVMFS_CLIENT_PROFILE",
    "CVMFS_FAILOVER_INDEFINITELY", "CVMFS_CACHE_PRIMARY"};

TEST(KnownParametersTest, EveryCvmfsParameterIsJudged) {
  for (const char* name : kCvmfsDocumented) {
    const ClientParameter* p = FindClientParameter(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_NE(p->support, ParameterSupport::kOurs) << name;
  }
}

TEST(KnownParametersTest, TableIsSortedWithReasons) {
  const auto& table = ClientParameterTable();
  for (size_t i = 1; i < table.size(); ++i)
    EXPECT_LT(table[i - 1].name, table[i].name);
  for (const ClientParameter& p : table) {
    if (p.support == ParameterSupport::kRefused ||
        p.support == ParameterSupport::kRefusedUnlessDefault) {
      EXPECT_FALSE(p.note.empty()) << p.name << " is refused without reason";
    }
    EXPECT_EQ(p.support == ParameterSupport::kRefusedUnlessDefault,
              !p.accepted.empty())
        << p.name;
  }
}

TEST(KnownParametersTest, RefusedParameterFailsNamingIt) {
  OptionsManager opts;
  opts.Set("CVMFS_NFS_SOURCE", "yes", "/etc/cvmfs/default.local");
  Status st = CheckRefusedParameters(opts);
  ASSERT_EQ(st.code(), Status::Code::kInvalidArgument);
  EXPECT_EQ(st.message(),
            "CVMFS_NFS_SOURCE='yes' (from /etc/cvmfs/default.local) is not "
            "supported by this client: NFS export mode is not implemented "
            "(unset it, or set it to no)");

  opts = OptionsManager();
  opts.Set("CVMFS_UID_MAP", "/etc/cvmfs/uid_map", "x.conf");
  opts.Set("CVMFS_CACHE_ram_TYPE", "ram", "y.conf");
  st = CheckRefusedParameters(opts);
  EXPECT_NE(st.message().find("CVMFS_UID_MAP='/etc/cvmfs/uid_map' (from "
                              "x.conf) is not supported by this client: uid "
                              "and gid maps are not implemented (unset it)"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("CVMFS_CACHE_ram_TYPE='ram' (from y.conf)"),
            std::string::npos)
      << st.message();
}

TEST(KnownParametersTest, DefaultValuesAndEmptyPass) {
  OptionsManager opts;
  // What CVMFS's and Debian's default.conf set, spelled as sites spell it.
  opts.Set("CVMFS_NFS_SOURCE", "no", "default.conf");
  opts.Set("CVMFS_MOUNT_RW", "NO", "default.conf");
  opts.Set("CVMFS_IGNORE_SIGNATURE", "false", "default.conf");
  opts.Set("CVMFS_STRICT_MOUNT", " off ", "default.conf");
  opts.Set("CVMFS_SEND_INFO_HEADER", "0", "default.conf");
  opts.Set("CVMFS_USE_GEOAPI", "no", "default.conf");
  opts.Set("CVMFS_BASE_ENV", "1", "default.conf");
  opts.Set("CVMFS_RELOAD_SOCKETS", "/var/run/cvmfs", "default.conf");
  opts.Set("CVMFS_MEMCACHE_SIZE", "16", "default.conf");
  opts.Set("CVMFS_TRACEFILE", "", "default.local");  // set empty = unset
  opts.Set("CVMFS_UNKNOWN_THING", "1", "x.conf");    // warned, not refused
  EXPECT_TRUE(CheckRefusedParameters(opts).ok())
      << CheckRefusedParameters(opts).message();
  opts.Set("CVMFS_NFS_SOURCE", "yes", "default.local");
  EXPECT_FALSE(CheckRefusedParameters(opts).ok());
}

// doc/client.md carries the table verbatim between two markers.
TEST(KnownParametersTest, DocumentationTableMatchesCode) {
  std::ifstream in(testing::SourceDir() + "/doc/client.md");
  ASSERT_TRUE(in) << "doc/client.md not found (set CVMFS_SOURCE_DIR)";
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const std::string begin = "<!-- parameter table: begin -->\n";
  const std::string end = "<!-- parameter table: end -->";
  size_t b = doc.find(begin), e = doc.find(end);
  ASSERT_NE(b, std::string::npos);
  ASSERT_NE(e, std::string::npos);
  b += begin.size();
  EXPECT_EQ(doc.substr(b, e - b), ClientParameterTableMarkdown())
      << "regenerate the table in doc/client.md from the code (the expected "
         "text above)";
}

}  // namespace
}  // namespace cvmfs
