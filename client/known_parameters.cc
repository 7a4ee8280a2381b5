#include "client/known_parameters.h"

#include <algorithm>
#include <iterator>

namespace cvmfs {
namespace {

// Looked up linearly: the table is read a few times at mount, never on a hot
// path.
constexpr std::string_view kKnownNames[] = {
    "CVMFS_ALIEN_CACHE",
    "CVMFS_ALT_ROOT_PATH",
    "CVMFS_ARCH",  // set by the client itself, visible to files and symlinks
    "CVMFS_AUTHZ_HELPER",
    "CVMFS_AUTHZ_SEARCH_PATH",
    "CVMFS_AUTO_UPDATE",
    "CVMFS_BACKOFF_INIT",
    "CVMFS_BACKOFF_MAX",
    "CVMFS_BASE_ENV",
    "CVMFS_CACHE_BASE",
    "CVMFS_CACHE_DIR",
    "CVMFS_CACHE_PRIMARY",
    "CVMFS_CACHE_REFCOUNT",
    "CVMFS_CACHE_SYMLINKS",
    "CVMFS_CATALOG_WATERMARK",
    "CVMFS_CHECK_PERMISSIONS",
    "CVMFS_CLAIM_OWNERSHIP",
    "CVMFS_CLIENT_PROFILE",
    "CVMFS_CONFIG_REPOSITORY",
    "CVMFS_CONFIG_REPO_REQUIRED",
    "CVMFS_CPU_AFFINITY",
    "CVMFS_DEBUGLOG",
    "CVMFS_DEFAULT_DOMAIN",
    "CVMFS_DNS_MAX_TTL",
    "CVMFS_DNS_MIN_TTL",
    "CVMFS_DNS_RETRIES",
    "CVMFS_DNS_ROAMING",
    "CVMFS_DNS_TIMEOUT",
    "CVMFS_ENFORCE_ACLS",
    "CVMFS_EXTERNAL_FALLBACK_PROXY",
    "CVMFS_EXTERNAL_HTTP_PROXY",
    "CVMFS_EXTERNAL_MAX_SERVERS",
    "CVMFS_EXTERNAL_METALINK",
    "CVMFS_EXTERNAL_TIMEOUT",
    "CVMFS_EXTERNAL_TIMEOUT_DIRECT",
    "CVMFS_EXTERNAL_URL",
    "CVMFS_FAILOVER_INDEFINITELY",
    "CVMFS_FALLBACK_PROXY",
    "CVMFS_FOLLOW_REDIRECTS",
    "CVMFS_FQRN",  // set by the client for the files
    "CVMFS_FUSE_NOTIFY_INVALIDATION",
    "CVMFS_GID_MAP",
    "CVMFS_HIDE_MAGIC_XATTRS",
    "CVMFS_HOST_RESET_AFTER",
    "CVMFS_HTTP_PROXY",
    "CVMFS_HTTP_TRACING",
    "CVMFS_HTTP_TRACING_HEADERS",
    "CVMFS_IGNORE_SIGNATURE",
    "CVMFS_INFLUX_EXTRA_FIELDS",
    "CVMFS_INFLUX_EXTRA_TAGS",
    "CVMFS_INFLUX_HOST",
    "CVMFS_INFLUX_METRIC_NAME",
    "CVMFS_INFLUX_PORT",
    "CVMFS_INITIAL_GENERATION",
    "CVMFS_INSTRUMENT_FUSE",
    "CVMFS_IPFAMILY_PREFER",
    "CVMFS_KCACHE_TIMEOUT",
    "CVMFS_KEYS_DIR",
    "CVMFS_LIBRARY_PATH",
    "CVMFS_LOW_SPEED_LIMIT",
    "CVMFS_MAGIC_XATTRS_VISIBILITY",
    "CVMFS_MAX_CONNECTIONS",        // ours: libcurl connection pool per mount
    "CVMFS_METADATA_DEADLINE",      // ours: overall limit of one download of
                                    // a signed file or catalog
    "CVMFS_PREFETCH",               // ours: prefetch on/off
    "CVMFS_PREFETCH_BUDGET",        // ours: prefetch byte budget (MB)
    "CVMFS_PREFETCH_FILES",         // ours: prefetch object budget
    "CVMFS_PREFETCH_PARALLEL",      // ours: prefetch transfers in flight
    "CVMFS_PREFETCH_SPECULATE_MS",  // ours: round trip that makes prefetch
                                    // guess
    "CVMFS_MAX_EXTERNAL_SERVERS",
    "CVMFS_MAX_IPADDR_PER_PROXY",
    "CVMFS_MAX_RETRIES",
    "CVMFS_MAX_SERVERS",
    "CVMFS_MAX_TTL",
    "CVMFS_MEMCACHE_SIZE",
    "CVMFS_METALINK_URL",
    "CVMFS_MOUNT_DIR",
    "CVMFS_MOUNT_RW",
    "CVMFS_NFILES",
    "CVMFS_NFS_INTERLEAVED_INODES",
    "CVMFS_NFS_SHARED",
    "CVMFS_NFS_SOURCE",
    "CVMFS_OOM_SCORE_ADJ",
    "CVMFS_PAC_URLS",
    "CVMFS_PREFETCH_FILEBUNDLES",
    "CVMFS_PROXY_RESET_AFTER",
    "CVMFS_PROXY_SHARD",
    "CVMFS_PROXY_TEMPLATE",
    "CVMFS_PUBLIC_KEY",
    "CVMFS_QUOTA_LIMIT",
    "CVMFS_RELOAD_SOCKETS",
    "CVMFS_REPOSITORIES",
    "CVMFS_REPOSITORY_DATE",
    "CVMFS_REPOSITORY_TAG",
    "CVMFS_ROOTDIR",  // ours: relocates every system path (system_paths.h)
    "CVMFS_ROOT_HASH",
    "CVMFS_SEND_INFO_HEADER",
    "CVMFS_SERVER_CACHE_MODE",
    "CVMFS_SERVER_URL",
    "CVMFS_SHARED_CACHE",
    "CVMFS_STATFS_CACHE_TIMEOUT",
    "CVMFS_STREAMING_CACHE",
    "CVMFS_STRICT_MOUNT",
    "CVMFS_SUID",
    "CVMFS_SYSLOG_FACILITY",
    "CVMFS_SYSLOG_LEVEL",
    "CVMFS_SYSLOG_PREFIX",
    "CVMFS_SYSTEMD_NOKILL",
    "CVMFS_TELEMETRY_RATE",
    "CVMFS_TELEMETRY_SEND",
    "CVMFS_TIMEOUT",
    "CVMFS_TIMEOUT_DIRECT",
    "CVMFS_TRACEBUFFER",
    "CVMFS_TRACEBUFFER_THRESHOLD",
    "CVMFS_TRACEFILE",
    "CVMFS_UID_MAP",
    "CVMFS_USER",
    "CVMFS_USE_CDN",
    "CVMFS_USE_GEOAPI",
    "CVMFS_USE_SSL_SYSTEM_CA",
    "CVMFS_USYSLOG",
    "CVMFS_VERSION",  // set by the client itself
    "CVMFS_VERSION_NUMERIC",
    "CVMFS_WORKSPACE",
    "CVMFS_WORLD_READABLE",
    "CVMFS_XATTR_PRIVILEGED_GIDS",
    "CVMFS_XATTR_PROTECTED_XATTRS",
};

// CVMFS_CACHE_<instance>_<setting> (tiered and external cache managers).
constexpr std::string_view kCacheInstanceSettings[] = {
    "ALIEN",          "BASE",        "CMDLINE", "DIR",  "LOCATOR", "LOWER",
    "LOWER_READONLY", "QUOTA_LIMIT", "SHARED",  "TYPE", "UPPER",   "WORKSPACE",
};

bool IsCacheInstanceParameter(std::string_view name) {
  constexpr std::string_view kPrefix = "CVMFS_CACHE_";
  if (name.substr(0, kPrefix.size()) != kPrefix) return false;
  std::string_view rest = name.substr(kPrefix.size());
  for (std::string_view setting : kCacheInstanceSettings) {
    // at least one character of instance name, then '_', then the setting
    if (rest.size() > setting.size() + 1 &&
        rest.substr(rest.size() - setting.size()) == setting &&
        rest[rest.size() - setting.size() - 1] == '_') {
      return true;
    }
  }
  return false;
}

size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1,
                         diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The known name closest to `name` if it is at most two edits away.
std::string_view Suggestion(std::string_view name) {
  std::string_view best;
  size_t best_distance = 3;
  for (std::string_view known : kKnownNames) {
    size_t d = EditDistance(name, known);
    if (d < best_distance) {
      best = known;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace

bool IsKnownClientParameter(std::string_view name) {
  return std::find(std::begin(kKnownNames), std::end(kKnownNames), name) !=
             std::end(kKnownNames) ||
         IsCacheInstanceParameter(name);
}

std::vector<std::string> UnknownParameterWarnings(const OptionsManager& opts) {
  std::vector<std::string> warnings;
  for (const std::string& name : opts.Names()) {
    if (name.rfind("CVMFS_", 0) != 0 || IsKnownClientParameter(name)) continue;
    std::string warning = name + " (from " + opts.GetSource(name).value_or("") +
                          ") is not a CVMFS client parameter and is ignored";
    std::string_view suggestion = Suggestion(name);
    if (!suggestion.empty())
      warning += "; did you mean " + std::string(suggestion) + "?";
    warnings.push_back(std::move(warning));
  }
  return warnings;
}

}  // namespace cvmfs
