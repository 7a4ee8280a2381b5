#include "client/known_parameters.h"

#include <algorithm>
#include <cctype>

#include "cvmfs/text.h"

namespace cvmfs {
namespace {

constexpr ParameterSupport kYes = ParameterSupport::kSupported;
constexpr ParameterSupport kOurs = ParameterSupport::kOurs;
constexpr ParameterSupport kUnlessDefault =
    ParameterSupport::kRefusedUnlessDefault;
constexpr ParameterSupport kNo = ParameterSupport::kRefused;

constexpr std::string_view kNoNfs = "NFS export mode is not implemented";
constexpr std::string_view kNoTelemetry =
    "the InfluxDB telemetry aggregator is not implemented";
constexpr std::string_view kNoAuthz =
    "authorization helpers (membership requirements) are not implemented";
constexpr std::string_view kNoTracer =
    "the file system call tracer is not implemented (CVMFS_DEBUGLOG logs "
    "every call)";
constexpr std::string_view kOtherCaches =
    "tiered, RAM and external cache managers are not implemented: the cache "
    "is the POSIX cache under CVMFS_CACHE_BASE (or CVMFS_ALIEN_CACHE)";
constexpr std::string_view kToolsOnly = "read by cvmfs_config and mount.cvmfs";

// Sorted by name; looked up linearly (read a few times at mount, never on a
// hot path). One entry per line.
// clang-format off
const std::vector<ClientParameter> kTable = {
    {"CVMFS_ALIEN_CACHE", kYes, "", "an unmanaged cache directory shared by many nodes (\"Alien cache\")"},
    {"CVMFS_ALT_ROOT_PATH", kUnlessDefault, "no", "alternative root catalog paths (.cvmfsalt-*) are not read"},
    {"CVMFS_ARCH", kYes, "", "set by the client; $(CVMFS_ARCH) in variant symlinks"},
    {"CVMFS_AUTHZ_HELPER", kNo, "", kNoAuthz},
    {"CVMFS_AUTHZ_SEARCH_PATH", kNo, "", kNoAuthz},
    {"CVMFS_AUTO_UPDATE", kYes, "", ""},
    {"CVMFS_BACKOFF_INIT", kYes, "", ""},
    {"CVMFS_BACKOFF_MAX", kYes, "", ""},
    {"CVMFS_BASE_ENV", kYes, "", "set by default.conf: marks it as read"},
    {"CVMFS_BUNDLES", kOurs, "", "small files of a directory fetched in one request (\"Bundles\")"},
    {"CVMFS_CACHE_BASE", kYes, "", ""},
    {"CVMFS_CACHE_DIR", kNo, "", "the cache directory is derived from CVMFS_CACHE_BASE and CVMFS_SHARED_CACHE"},
    {"CVMFS_CACHE_PRIMARY", kNo, "", kOtherCaches},
    {"CVMFS_CACHE_REFCOUNT", kUnlessDefault, "yes", "open files of one object always share a descriptor here"},
    {"CVMFS_CACHE_SYMLINKS", kUnlessDefault, "yes", "the kernel always caches symlink targets here"},
    {"CVMFS_CATALOG_WATERMARK", kNo, "", "loaded catalogs are released by the client's own policy"},
    {"CVMFS_CHECK_PERMISSIONS", kYes, "", ""},
    {"CVMFS_CLAIM_OWNERSHIP", kYes, "", ""},
    {"CVMFS_CLIENT_PROFILE", kNo, "", "client profiles are not implemented: set CVMFS_HTTP_PROXY"},
    {"CVMFS_CONFIG_REPOSITORY", kYes, "", ""},
    {"CVMFS_CONFIG_REPO_REQUIRED", kYes, "", ""},
    {"CVMFS_CPU_AFFINITY", kNo, "", "not implemented: use taskset or systemd's CPUAffinity"},
    {"CVMFS_DEBUGLOG", kYes, "", ""},
    {"CVMFS_DEFAULT_DOMAIN", kYes, "", kToolsOnly},
    {"CVMFS_DNS_MAX_TTL", kYes, "", ""},
    {"CVMFS_DNS_MIN_TTL", kYes, "", ""},
    {"CVMFS_DNS_RETRIES", kYes, "", ""},
    {"CVMFS_DNS_ROAMING", kUnlessDefault, "no", "changes of /etc/resolv.conf are not watched; proxy names are resolved again after CVMFS_DNS_MIN_TTL"},
    {"CVMFS_DNS_SERVER", kNo, "", "proxy names are resolved by the system resolver; a separate DNS server is not supported"},
    {"CVMFS_DNS_TIMEOUT", kYes, "", ""},
    {"CVMFS_ENFORCE_ACLS", kYes, "", ""},
    {"CVMFS_EXTERNAL_FALLBACK_PROXY", kYes, "", ""},
    {"CVMFS_EXTERNAL_HTTP_PROXY", kYes, "", ""},
    {"CVMFS_EXTERNAL_MAX_SERVERS", kYes, "", ""},
    {"CVMFS_EXTERNAL_METALINK", kNo, "", "metalink server lists are not implemented"},
    {"CVMFS_EXTERNAL_TIMEOUT", kYes, "", ""},
    {"CVMFS_EXTERNAL_TIMEOUT_DIRECT", kYes, "", ""},
    {"CVMFS_EXTERNAL_URL", kYes, "", ""},
    {"CVMFS_FAILOVER_INDEFINITELY", kUnlessDefault, "no", "a download fails after the last host and proxy"},
    {"CVMFS_FALLBACK_PROXY", kYes, "", ""},
    {"CVMFS_FOLLOW_REDIRECTS", kUnlessDefault, "no", "HTTP redirects are not followed"},
    {"CVMFS_FQRN", kYes, "", "set by the client for the configuration files"},
    {"CVMFS_FUSE_NOTIFY_INVALIDATION", kUnlessDefault, "yes", "the kernel is always told about a new revision"},
    {"CVMFS_GID_MAP", kNo, "", "uid and gid maps are not implemented"},
    {"CVMFS_HIDE_MAGIC_XATTRS", kYes, "", ""},
    {"CVMFS_HOST_RESET_AFTER", kYes, "", ""},
    {"CVMFS_HTTP_PROXY", kYes, "", ""},
    {"CVMFS_HTTP_TRACING", kUnlessDefault, "off", "tracing headers are not sent"},
    {"CVMFS_HTTP_TRACING_HEADERS", kNo, "", "tracing headers are not sent"},
    {"CVMFS_IGNORE_SIGNATURE", kUnlessDefault, "no", "signatures are always verified"},
    {"CVMFS_INFLUX_EXTRA_FIELDS", kNo, "", kNoTelemetry},
    {"CVMFS_INFLUX_EXTRA_TAGS", kNo, "", kNoTelemetry},
    {"CVMFS_INFLUX_HOST", kNo, "", kNoTelemetry},
    {"CVMFS_INFLUX_METRIC_NAME", kNo, "", kNoTelemetry},
    {"CVMFS_INFLUX_PORT", kNo, "", kNoTelemetry},
    {"CVMFS_INITIAL_GENERATION", kNo, "", "the inode generation is not configurable"},
    {"CVMFS_INSTRUMENT_FUSE", kUnlessDefault, "no", "FUSE call timing is not implemented"},
    {"CVMFS_IPFAMILY_PREFER", kYes, "", ""},
    {"CVMFS_KCACHE_TIMEOUT", kYes, "", ""},
    {"CVMFS_KEYS_DIR", kYes, "", ""},
    {"CVMFS_LIBRARY_PATH", kNo, "", "there is no loader: cvmfs2 is one program"},
    {"CVMFS_LOW_SPEED_LIMIT", kYes, "", ""},
    {"CVMFS_MAGIC_XATTRS_VISIBILITY", kYes, "", ""},
    {"CVMFS_MAX_CONNECTIONS", kOurs, "", "connections per host or proxy (CVMFS: fixed 16)"},
    {"CVMFS_MAX_EXTERNAL_SERVERS", kUnlessDefault, "0", "the external server list is not capped"},
    {"CVMFS_MAX_IPADDR_PER_PROXY", kYes, "", ""},
    {"CVMFS_MAX_RETRIES", kYes, "", ""},
    {"CVMFS_MAX_SERVERS", kYes, "", "keep the first N Stratum 1s (after the Geo-API ordered them)"},
    {"CVMFS_MAX_TTL", kYes, "", ""},
    {"CVMFS_MEMCACHE_SIZE", kYes, "", "megabytes of metadata the client remembers about inodes the kernel holds (\"Memory\")"},
    {"CVMFS_METADATA_DEADLINE", kOurs, "", "longest attempt at a signed file or catalog"},
    {"CVMFS_METALINK_URL", kNo, "", "metalink server lists are not implemented"},
    {"CVMFS_MOUNT_DIR", kYes, "", kToolsOnly},
    {"CVMFS_MOUNT_RW", kUnlessDefault, "no", "the file system is always mounted read-only"},
    {"CVMFS_NFILES", kYes, "", ""},
    {"CVMFS_NFS_INTERLEAVED_INODES", kNo, "", kNoNfs},
    {"CVMFS_NFS_SHARED", kNo, "", kNoNfs},
    {"CVMFS_NFS_SOURCE", kUnlessDefault, "no", kNoNfs},
    {"CVMFS_NOTIFICATION_SERVER", kYes, "", "new revisions switched to when announced (\"Notifications\")"},
    {"CVMFS_OOM_SCORE_ADJ", kNo, "", "not implemented: use systemd's OOMScoreAdjust"},
    {"CVMFS_PAC_URLS", kYes, "", ""},
    {"CVMFS_PREFETCH", kOurs, "", "background prefetch on or off"},
    {"CVMFS_PREFETCH_BUDGET", kOurs, "", "prefetch megabytes outstanding"},
    {"CVMFS_PREFETCH_FILEBUNDLES", kNo, "", "file bundles are not implemented"},
    {"CVMFS_PREFETCH_FILES", kOurs, "", "prefetch objects outstanding"},
    {"CVMFS_PREFETCH_PARALLEL", kOurs, "", "prefetch transfers in flight"},
    {"CVMFS_PREFETCH_SPECULATE_MS", kOurs, "", "round trip from which prefetch speculates"},
    {"CVMFS_PROXY_RESET_AFTER", kYes, "", ""},
    {"CVMFS_PROXY_SHARD", kUnlessDefault, "no", "requests are not sharded across a proxy group"},
    {"CVMFS_PROXY_TEMPLATE", kYes, "", "the proxy name in Geo-API requests"},
    {"CVMFS_PUBLIC_KEY", kYes, "", ""},
    {"CVMFS_QUOTA_LIMIT", kYes, "", ""},
    {"CVMFS_RELOAD_SOCKETS", kYes, "", "accepted: there is no loader to reload (a reload is a remount)"},
    {"CVMFS_REPOSITORIES", kYes, "", kToolsOnly},
    {"CVMFS_REPOSITORY_DATE", kYes, "", ""},
    {"CVMFS_REPOSITORY_TAG", kYes, "", ""},
    {"CVMFS_ROOTDIR", kOurs, "", "relocates every system path"},
    {"CVMFS_ROOT_HASH", kYes, "", ""},
    {"CVMFS_SEND_INFO_HEADER", kUnlessDefault, "no", "the path is not sent in HTTP headers"},
    {"CVMFS_SERVER_CACHE_MODE", kUnlessDefault, "no", "the publisher mounts with its own settings"},
    {"CVMFS_SERVER_URL", kYes, "", ""},
    {"CVMFS_SHARED_CACHE", kYes, "", ""},
    {"CVMFS_STATFS_CACHE_TIMEOUT", kYes, "", ""},
    {"CVMFS_STREAMING_CACHE", kUnlessDefault, "no", "the streaming cache manager is not implemented"},
    {"CVMFS_STRICT_MOUNT", kUnlessDefault, "no", "every configured repository may be mounted"},
    {"CVMFS_SUID", kUnlessDefault, "no", "the file system is always mounted nosuid"},
    {"CVMFS_SYSLOG_FACILITY", kYes, "", ""},
    {"CVMFS_SYSLOG_LEVEL", kYes, "", ""},
    {"CVMFS_SYSLOG_PREFIX", kYes, "", ""},
    {"CVMFS_SYSTEMD_NOKILL", kUnlessDefault, "no", "the process name is not changed for systemd"},
    {"CVMFS_TELEMETRY_RATE", kNo, "", kNoTelemetry},
    {"CVMFS_TELEMETRY_SEND", kUnlessDefault, "off", kNoTelemetry},
    {"CVMFS_TIMEOUT", kYes, "", ""},
    {"CVMFS_TIMEOUT_DIRECT", kYes, "", ""},
    {"CVMFS_TRACEBUFFER", kNo, "", kNoTracer},
    {"CVMFS_TRACEBUFFER_THRESHOLD", kNo, "", kNoTracer},
    {"CVMFS_TRACEFILE", kNo, "", kNoTracer},
    {"CVMFS_UID_MAP", kNo, "", "uid and gid maps are not implemented"},
    {"CVMFS_USER", kYes, "", ""},
    {"CVMFS_USE_CDN", kYes, "", "read by the configuration files themselves"},
    {"CVMFS_USE_GEOAPI", kYes, "", ""},
    {"CVMFS_USE_SSL_SYSTEM_CA", kUnlessDefault, "yes", "HTTPS servers are verified with the system's certificate store"},
    {"CVMFS_USYSLOG", kNo, "", "logging to a file instead of syslog is not implemented (CVMFS_DEBUGLOG)"},
    {"CVMFS_VERSION", kYes, "", "set by the client"},
    {"CVMFS_VERSION_NUMERIC", kYes, "", "set by the client"},
    {"CVMFS_WORKSPACE", kNo, "", "the workspace is always the cache directory"},
    {"CVMFS_WORLD_READABLE", kUnlessDefault, "no", "modes are shown as the repository stores them"},
    {"CVMFS_XATTR_PRIVILEGED_GIDS", kYes, "", ""},
    {"CVMFS_XATTR_PROTECTED_XATTRS", kYes, "", ""},
};
// clang-format on

// CVMFS_CACHE_<instance>_<setting> (tiered and external cache managers).
constexpr std::string_view kCacheInstanceSettings[] = {
    "ALIEN",          "BASE",        "CMDLINE", "DIR",  "LOCATOR", "LOWER",
    "LOWER_READONLY", "QUOTA_LIMIT", "SHARED",  "TYPE", "UPPER",   "WORKSPACE",
};
const ClientParameter kCacheInstance = {"CVMFS_CACHE_<instance>_<setting>", kNo,
                                        "", kOtherCaches};

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
  for (const ClientParameter& p : kTable) {
    size_t d = EditDistance(name, p.name);
    if (d < best_distance) {
      best = p.name;
      best_distance = d;
    }
  }
  return best;
}

// Values compare trimmed and case-insensitively, booleans as booleans.
std::string Canonical(std::string_view value) {
  std::string v(Trim(value, " \t"));
  for (char& c : v)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (std::optional<bool> b = ParseBoolean(v)) return *b ? "yes" : "no";
  return v;
}

std::string RefusalOf(const ClientParameter& p, const std::string& name,
                      const OptionsManager& opts) {
  std::string msg = name + "='" + opts.Get(name).value_or("") + "' (from " +
                    opts.GetSource(name).value_or("nowhere") +
                    ") is not supported by this client: " + std::string(p.note);
  if (p.support == ParameterSupport::kRefusedUnlessDefault)
    return msg + " (unset it, or set it to " + std::string(p.accepted) + ")";
  return msg + " (unset it)";
}

}  // namespace

const std::vector<ClientParameter>& ClientParameterTable() { return kTable; }

const ClientParameter* FindClientParameter(std::string_view name) {
  for (const ClientParameter& p : kTable)
    if (p.name == name) return &p;
  return IsCacheInstanceParameter(name) ? &kCacheInstance : nullptr;
}

bool IsKnownClientParameter(std::string_view name) {
  return FindClientParameter(name) != nullptr;
}

Status CheckRefusedParameters(const OptionsManager& opts) {
  std::string refused;
  for (const std::string& name : opts.Names()) {
    const ClientParameter* p = FindClientParameter(name);
    const std::string value = opts.Get(name).value_or("");
    if (p == nullptr || Trim(value, " \t").empty()) continue;
    if (p->support == ParameterSupport::kRefused ||
        (p->support == ParameterSupport::kRefusedUnlessDefault &&
         Canonical(value) != Canonical(p->accepted))) {
      refused += (refused.empty() ? "" : "; ") + RefusalOf(*p, name, opts);
    }
  }
  if (refused.empty()) return Status::Ok();
  return Status::InvalidArgument(refused);
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

std::string ClientParameterTableMarkdown() {
  std::string out = "| parameter | here |\n|---|---|\n";
  auto row = [&out](const ClientParameter& p) {
    const std::string note(p.note);
    std::string status;
    switch (p.support) {
      case ParameterSupport::kSupported:
      case ParameterSupport::kOurs:
        status = p.support == ParameterSupport::kOurs ? "ours" : "supported";
        if (!note.empty()) status += ": " + note;
        break;
      case ParameterSupport::kRefusedUnlessDefault:
        status =
            "refused unless `" + std::string(p.accepted) + "`, because " + note;
        break;
      case ParameterSupport::kRefused:
        status = "refused, because " + note;
        break;
    }
    out += "| `" + std::string(p.name) + "` | " + status + " |\n";
  };
  for (const ClientParameter& p : kTable) row(p);
  row(kCacheInstance);
  return out;
}

}  // namespace cvmfs
