#include "client/client_settings.h"

#include <sys/utsname.h>

#include <algorithm>
#include <cstdint>
#include <ctime>
#include <limits>

#include "client/known_parameters.h"
#include "client/magic_xattrs.h"
#include "cvmfs/config/option_reader.h"
#include "cvmfs/config/url_lists.h"
#include "cvmfs/file_util.h"
#include "cvmfs/text.h"

namespace cvmfs {
namespace {

constexpr int64_t kMaxSeconds = 365LL * 24 * 3600;
constexpr int64_t kMaxMegabytes = std::numeric_limits<int64_t>::max() >> 20;

std::string Range(const std::string& unit, int64_t min, int64_t max) {
  return unit + " (a whole number from " + std::to_string(min) + " to " +
         std::to_string(max) + ")";
}

// Reads an integer parameter into `field`, whose initial value (the
// struct's default) is the default.
template <typename T>
Status ReadInt(const OptionReader& r, const char* name, int64_t min,
               int64_t max, const std::string& unit, T* field) {
  CVMFS_ASSIGN_OR_RETURN(
      int64_t v, r.Integer(name, *field, min, max, Range(unit, min, max)));
  *field = static_cast<T>(v);
  return Status::Ok();
}

Status ReadBool(const OptionReader& r, const char* name, bool* field) {
  CVMFS_ASSIGN_OR_RETURN(*field, r.Bool(name, *field));
  return Status::Ok();
}

std::string MachineArch() {
  utsname u;
  return uname(&u) == 0 ? u.machine : "unknown";
}

std::string StripTrailingSlashes(std::string path) {
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  return path;
}

Status ReadNetworkLists(const OptionReader& r, const SystemPaths& paths,
                        ClientSettings* s) {
  const std::string etc = paths.EtcCvmfs();
  const std::string domain = s->fqrn.substr(s->fqrn.find('.') + 1);
  auto servers =
      ParseServerUrls(r.String("CVMFS_SERVER_URL", ""), s->fqrn, s->org);
  if (!servers.ok()) {
    return r.Invalid("CVMFS_SERVER_URL",
                     "a ';'-separated list of Stratum 1 URLs such as "
                     "http://stratum1.example.org/cvmfs/@fqrn@; " +
                         servers.status().message());
  }
  s->server_urls = std::move(servers).value();
  if (s->server_urls.empty()) {
    return Status::InvalidArgument(
        "CVMFS_SERVER_URL is not set for " + s->fqrn + ": set it in " + etc +
        "/domain.d/" + domain + ".local or " + etc + "/config.d/" + s->fqrn +
        ".local, e.g. "
        "CVMFS_SERVER_URL='http://stratum1.example.org/cvmfs/@fqrn@'");
  }
  const std::string kProxySyntax =
      "proxy groups such as 'http://p1:3128|http://p2:3128;DIRECT' "
      "('|' within a group, ';' between groups); ";
  auto read_groups = [&](const char* name, auto* field) {
    auto groups = ParseProxyGroups(r.String(name, ""));
    if (!groups.ok())
      return r.Invalid(name, kProxySyntax + groups.status().message());
    *field = std::move(groups).value();
    return Status::Ok();
  };
  CVMFS_RETURN_IF_ERROR(read_groups("CVMFS_HTTP_PROXY", &s->proxy_groups));
  CVMFS_RETURN_IF_ERROR(
      read_groups("CVMFS_FALLBACK_PROXY", &s->fallback_proxy_groups));
  for (const auto& group : s->fallback_proxy_groups) {
    if (std::find(group.begin(), group.end(), kAutoProxy) != group.end())
      return r.Invalid("CVMFS_FALLBACK_PROXY",
                       "proxies without 'auto' (proxy auto-configuration "
                       "sets the regular list, CVMFS_HTTP_PROXY, only)");
  }
  for (const auto& group : s->proxy_groups) {
    if (group.size() > 1 &&
        std::find(group.begin(), group.end(), kAutoProxy) != group.end())
      return r.Invalid("CVMFS_HTTP_PROXY",
                       kProxySyntax +
                           "'auto' must be a group of its own, "
                           "e.g. 'auto;DIRECT'");
  }
  if (std::optional<std::string> urls = r.Optional("CVMFS_PAC_URLS")) {
    s->pac_urls.clear();
    for (const std::string& url : SplitNonEmpty(*urls, ";")) {
      std::string u(Trim(url, " \t\n"));
      if (u.empty()) continue;
      if (u != kAutoProxy && u.rfind("http://", 0) != 0 &&
          u.rfind("https://", 0) != 0 && u.rfind("file://", 0) != 0)
        return r.Invalid("CVMFS_PAC_URLS",
                         "a ';'-separated list of http://, https:// or "
                         "file:// URLs of PAC files (or auto for "
                         "http://wpad/wpad.dat); '" +
                             u + "' is none");
      s->pac_urls.push_back(u);
    }
  }
  if (s->proxy_groups.empty()) {
    return Status::InvalidArgument(
        "CVMFS_HTTP_PROXY is not set: set it in " + etc +
        "/default.local to "
        "your site's proxies, e.g. "
        "CVMFS_HTTP_PROXY='http://squid.example.org:3128', "
        "or to DIRECT if this client connects to the servers without a proxy");
  }
  return Status::Ok();
}

Status ReadPrefetch(const OptionReader& r, ClientSettings* s) {
  CVMFS_RETURN_IF_ERROR(ReadBool(r, "CVMFS_PREFETCH", &s->prefetch));
  CVMFS_RETURN_IF_ERROR(ReadBool(r, "CVMFS_BUNDLES", &s->bundles));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_PREFETCH_FILES", 0, 65536,
                                "objects (0 turns prefetch off)",
                                &s->prefetch_files));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_PREFETCH_BUDGET", 1, 65536,
                                "megabytes", &s->prefetch_budget_mb));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_PREFETCH_PARALLEL", 1, 1024,
                                "transfers", &s->prefetch_parallel));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_PREFETCH_SPECULATE_MS", 0, 60000,
                                "milliseconds (0: always speculate)",
                                &s->prefetch_speculate_ms));
  // Demand reads must never wait for a connection behind prefetches: the
  // default follows CVMFS_MAX_CONNECTIONS, a value set explicitly must fit.
  const int half = s->max_connections / 2;
  if (r.String("CVMFS_PREFETCH_PARALLEL", "").empty()) {
    s->prefetch_parallel = std::min(s->prefetch_parallel, half);
  } else if (s->prefetch_parallel > half) {
    return r.Invalid("CVMFS_PREFETCH_PARALLEL",
                     "transfers, at most half of CVMFS_MAX_CONNECTIONS (" +
                         std::to_string(s->max_connections) +
                         "), so that demand reads always find a connection");
  }
  return Status::Ok();
}

Status ReadDns(const OptionReader& r, ClientSettings* s) {
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_MAX_IPADDR_PER_PROXY", 0, 1024,
                                "addresses (0: all)",
                                &s->max_ipaddr_per_proxy));
  if (std::optional<std::string> v = r.Optional("CVMFS_IPFAMILY_PREFER")) {
    if (*v != "4" && *v != "6")
      return r.Invalid("CVMFS_IPFAMILY_PREFER", "4 or 6");
    s->ipfamily_prefer = *v == "4" ? 4 : 6;
  }
  CVMFS_RETURN_IF_ERROR(
      ReadInt(r, "CVMFS_DNS_TIMEOUT", 1, 300, "seconds", &s->dns_timeout_s));
  CVMFS_RETURN_IF_ERROR(
      ReadInt(r, "CVMFS_DNS_RETRIES", 0, 100, "retries", &s->dns_retries));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_DNS_MIN_TTL", 1, kMaxSeconds,
                                "seconds", &s->dns_min_ttl_s));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_DNS_MAX_TTL", 1, kMaxSeconds,
                                "seconds", &s->dns_max_ttl_s));
  if (s->dns_max_ttl_s < s->dns_min_ttl_s)
    return r.Invalid("CVMFS_DNS_MAX_TTL",
                     "seconds, at least CVMFS_DNS_MIN_TTL (" +
                         std::to_string(s->dns_min_ttl_s) + ")");
  return Status::Ok();
}

Status ReadNetworkNumbers(const OptionReader& r, ClientSettings* s) {
  CVMFS_RETURN_IF_ERROR(ReadDns(r, s));
  CVMFS_RETURN_IF_ERROR(
      ReadInt(r, "CVMFS_TIMEOUT", 1, 3600, "seconds", &s->timeout_s));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_TIMEOUT_DIRECT", 1, 3600, "seconds",
                                &s->timeout_direct_s));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_LOW_SPEED_LIMIT", 0, INT32_MAX,
                                "bytes per second", &s->low_speed_limit));
  CVMFS_RETURN_IF_ERROR(
      ReadInt(r, "CVMFS_MAX_RETRIES", 0, 100, "retries", &s->max_retries));
  CVMFS_RETURN_IF_ERROR(
      ReadInt(r, "CVMFS_BACKOFF_INIT", 0, 3600, "seconds", &s->backoff_init_s));
  CVMFS_RETURN_IF_ERROR(
      ReadInt(r, "CVMFS_BACKOFF_MAX", 0, 3600, "seconds", &s->backoff_max_s));
  if (s->backoff_max_s < s->backoff_init_s) {
    return r.Invalid("CVMFS_BACKOFF_MAX",
                     "seconds, at least CVMFS_BACKOFF_INIT (" +
                         std::to_string(s->backoff_init_s) + ")");
  }
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_PROXY_RESET_AFTER", 0, kMaxSeconds,
                                "seconds", &s->proxy_reset_after_s));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_HOST_RESET_AFTER", 0, kMaxSeconds,
                                "seconds", &s->host_reset_after_s));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_MAX_CONNECTIONS", 1, 1024,
                                "connections", &s->max_connections));
  // A server trickling just above CVMFS_LOW_SPEED_LIMIT never times out by
  // the low-speed window; this bounds the attempt (doc/client.md).
  s->metadata_deadline_s = ClientSettings::kMetadataDeadlineFactor *
                           std::max(s->timeout_s, s->timeout_direct_s);
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_METADATA_DEADLINE", 0, 86400,
                                "seconds (0: no limit)",
                                &s->metadata_deadline_s));
  CVMFS_RETURN_IF_ERROR(ReadBool(r, "CVMFS_USE_GEOAPI", &s->use_geoapi));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_MAX_SERVERS", 0, 1000,
                                "servers (0: all)", &s->max_servers));
  s->proxy_template = r.String("CVMFS_PROXY_TEMPLATE", "");
  if (s->proxy_template.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJ"
                                          "KLMNOPQRSTUVWXYZ0123456789.:_-") !=
      std::string::npos)
    return r.Invalid("CVMFS_PROXY_TEMPLATE",
                     "a name for Geo-API requests (letters, digits, '.', "
                     "':', '_', '-')");
  return ReadPrefetch(r, s);
}

// As CVMFS: an alien cache is unmanaged (nobody could evict for every node)
// and private to the mount (no cache manager in between).
Status ReadAlienCache(const OptionReader& r, ClientSettings* s) {
  s->alien_cache = StripTrailingSlashes(r.String("CVMFS_ALIEN_CACHE", ""));
  if (s->alien_cache.empty()) return Status::Ok();
  if (s->alien_cache[0] != '/')
    return r.Invalid("CVMFS_ALIEN_CACHE", "an absolute directory path");
  if (s->quota_limit_mb != -1 || s->shared_cache) {
    return Status::InvalidArgument(
        "CVMFS_ALIEN_CACHE=" + s->alien_cache +
        " needs CVMFS_QUOTA_LIMIT=-1 (is " + std::to_string(s->quota_limit_mb) +
        ") and CVMFS_SHARED_CACHE=no (is " + (s->shared_cache ? "yes" : "no") +
        "): an alien cache is unmanaged and used by each mount directly, as "
        "in CVMFS");
  }
  return Status::Ok();
}

Status ReadCache(const OptionReader& r, const SystemPaths& paths,
                 ClientSettings* s) {
  s->cache_base =
      StripTrailingSlashes(r.String("CVMFS_CACHE_BASE", paths.VarLibCvmfs()));
  if (s->cache_base.empty() || s->cache_base[0] != '/')
    return r.Invalid("CVMFS_CACHE_BASE", "an absolute directory path");
  CVMFS_RETURN_IF_ERROR(ReadBool(r, "CVMFS_SHARED_CACHE", &s->shared_cache));
  const std::string kQuota = "megabytes (a number, or -1 for unmanaged)";
  CVMFS_ASSIGN_OR_RETURN(s->quota_limit_mb,
                         r.Integer("CVMFS_QUOTA_LIMIT", s->quota_limit_mb, -1,
                                   kMaxMegabytes, kQuota));
  if (s->quota_limit_mb == 0) return r.Invalid("CVMFS_QUOTA_LIMIT", kQuota);
  return ReadAlienCache(r, s);
}

// *.pub files directly in `dir`, sorted by name.
std::vector<std::string> PublicKeysIn(const std::string& dir) {
  std::vector<std::string> keys;
  auto names = ListDirectory(dir);
  if (!names.ok()) return keys;
  for (const std::string& name : *names) {
    std::string path = JoinPath(dir, name);
    if (name.size() > 4 && name.compare(name.size() - 4, 4, ".pub") == 0 &&
        !IsDirectory(path)) {
      keys.push_back(path);
    }
  }
  return keys;
}

// CVMFS's order: CVMFS_PUBLIC_KEY, else the *.pub files of CVMFS_KEYS_DIR,
// which defaults to /etc/cvmfs/keys/<domain> if that exists, else
// /etc/cvmfs/keys.
Status ReadKeys(const OptionReader& r, const SystemPaths& paths,
                ClientSettings* s) {
  const std::string domain_keys =
      JoinPath(paths.KeysDir(), s->fqrn.substr(s->fqrn.find('.') + 1));
  s->keys_dir =
      r.String("CVMFS_KEYS_DIR",
               IsDirectory(domain_keys) ? domain_keys : paths.KeysDir());
  if (std::optional<std::string> list = r.Optional("CVMFS_PUBLIC_KEY")) {
    size_t pos = 0;
    while (pos <= list->size()) {
      size_t colon = std::min(list->find(':', pos), list->size());
      std::string key = list->substr(pos, colon - pos);
      pos = colon + 1;
      if (key.empty()) continue;
      if (!PathExists(key) || IsDirectory(key)) {
        return r.Invalid(
            "CVMFS_PUBLIC_KEY",
            "a ':'-separated list of key files ('" + key + "' is no file)");
      }
      s->public_keys.push_back(key);
    }
    if (!s->public_keys.empty()) return Status::Ok();
  }
  s->public_keys = PublicKeysIn(s->keys_dir);
  if (s->public_keys.empty()) {
    return Status::InvalidArgument(
        "no public key for " + s->fqrn + ": no *.pub file in " + s->keys_dir +
        " (set CVMFS_KEYS_DIR to the directory holding the repository's "
        "*.pub keys, or CVMFS_PUBLIC_KEY to a ':'-separated list of key "
        "files)");
  }
  return Status::Ok();
}

// CVMFS warns about protected names that are not magic and goes on; so
// does this client (ClientSettings::warnings).
Status ReadXattrProtection(const OptionReader& r, ClientSettings* s) {
  client::MagicXattrsProtection& p = s->xattr_protection;
  p.protected_names = client::ParseProtectedXattrs(
      r.String("CVMFS_XATTR_PROTECTED_XATTRS", ""));
  for (const std::string& name : p.protected_names) {
    if (!client::MagicXattrs::IsMagic(name))
      s->warnings.push_back("CVMFS_XATTR_PROTECTED_XATTRS names " + name +
                            ", which is no magic attribute");
  }
  auto gids =
      client::ParsePrivilegedGids(r.String("CVMFS_XATTR_PRIVILEGED_GIDS", ""));
  if (!gids.ok())
    return r.Invalid("CVMFS_XATTR_PRIVILEGED_GIDS",
                     "a ','-separated list of numeric group ids (" +
                         gids.status().message() + ")");
  p.privileged_gids = std::move(gids).value();
  return Status::Ok();
}

Status ReadKernel(const OptionReader& r, ClientSettings* s) {
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_KCACHE_TIMEOUT", 0, 86400, "seconds",
                                &s->kcache_timeout_s));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_STATFS_CACHE_TIMEOUT", 0, 86400,
                                "seconds", &s->statfs_cache_timeout_s));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_MEMCACHE_SIZE", 1, 65536, "megabytes",
                                &s->memcache_size_mb));
  CVMFS_RETURN_IF_ERROR(
      ReadBool(r, "CVMFS_CLAIM_OWNERSHIP", &s->claim_ownership));
  CVMFS_RETURN_IF_ERROR(
      ReadBool(r, "CVMFS_CHECK_PERMISSIONS", &s->check_permissions));
  CVMFS_RETURN_IF_ERROR(
      ReadBool(r, "CVMFS_HIDE_MAGIC_XATTRS", &s->hide_magic_xattrs));
  if (s->hide_magic_xattrs)
    s->magic_xattrs_visibility = client::MagicXattrsVisibility::kNever;
  if (auto v = r.Optional("CVMFS_MAGIC_XATTRS_VISIBILITY")) {
    auto parsed = client::ParseMagicXattrsVisibility(*v);
    if (!parsed.ok())
      return r.Invalid("CVMFS_MAGIC_XATTRS_VISIBILITY",
                       "always, rootonly or never");
    s->magic_xattrs_visibility = *parsed;
  }
  CVMFS_RETURN_IF_ERROR(ReadXattrProtection(r, s));
  CVMFS_RETURN_IF_ERROR(ReadBool(r, "CVMFS_ENFORCE_ACLS", &s->enforce_acls));
  if (s->enforce_acls && !s->check_permissions)
    return Status::InvalidArgument(
        "CVMFS_ENFORCE_ACLS=yes needs CVMFS_CHECK_PERMISSIONS=yes (the kernel "
        "checks ACLs together with the mode bits)");
  return ReadInt(r, "CVMFS_NFILES", 1, INT32_MAX, "open files", &s->nfiles);
}

// "2007-03-01T13:00:00Z" → seconds since the epoch.
std::optional<int64_t> ParseIsoTimestamp(const std::string& text) {
  tm parts = {};
  const char* end = strptime(text.c_str(), "%Y-%m-%dT%H:%M:%SZ", &parts);
  if (end == nullptr || *end != '\0') return std::nullopt;
  return static_cast<int64_t>(timegm(&parts));
}

Status ReadUpdates(const OptionReader& r, ClientSettings* s) {
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_MAX_TTL", 0, kMaxSeconds / 60,
                                "minutes", &s->max_ttl_min));
  CVMFS_RETURN_IF_ERROR(ReadBool(r, "CVMFS_AUTO_UPDATE", &s->auto_update));
  s->notification_server = r.String("CVMFS_NOTIFICATION_SERVER", "");
  if (!s->notification_server.empty() &&
      s->notification_server.rfind("http://", 0) != 0 &&
      s->notification_server.rfind("https://", 0) != 0)
    return r.Invalid("CVMFS_NOTIFICATION_SERVER",
                     "an http:// or https:// URL such as "
                     "http://gateway:4929/api/v1");
  s->repository_tag = r.Optional("CVMFS_REPOSITORY_TAG");
  if (std::optional<std::string> date = r.Optional("CVMFS_REPOSITORY_DATE")) {
    s->repository_date = ParseIsoTimestamp(*date);
    if (!s->repository_date) {
      return r.Invalid("CVMFS_REPOSITORY_DATE",
                       "a UTC timestamp such as 2007-03-01T13:00:00Z");
    }
  }
  if (std::optional<std::string> hash = r.Optional("CVMFS_ROOT_HASH")) {
    auto digest = Digest::Parse(*hash);
    if (!digest.ok()) {
      return r.Invalid("CVMFS_ROOT_HASH",
                       "the hex content hash of a root catalog (as in "
                       "the manifest's C line)");
    }
    s->root_hash = *digest;
  }
  if (s->repository_tag || s->repository_date || s->root_hash)
    s->auto_update = false;  // a pinned revision never moves
  return Status::Ok();
}

Status ReadMisc(const OptionReader& r, ClientSettings* s) {
  s->debuglog = r.String("CVMFS_DEBUGLOG", "");
  if (!s->debuglog.empty() && s->debuglog[0] != '/')
    return r.Invalid("CVMFS_DEBUGLOG", "an absolute file path (or nothing)");
  // CVMFS maps other levels to notice and other facilities to LOG_USER
  // silently (its chksetup reports them); here they are errors.
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_SYSLOG_LEVEL", 1, 3,
                                "a syslog level: 1 debug, 2 info, 3 notice",
                                &s->syslog_level));
  CVMFS_RETURN_IF_ERROR(ReadInt(r, "CVMFS_SYSLOG_FACILITY", 0, 7,
                                "a facility: n for local<n>, unset for user",
                                &s->syslog_facility));
  s->syslog_prefix = r.String("CVMFS_SYSLOG_PREFIX", s->fqrn);
  s->arch = r.String("CVMFS_ARCH", MachineArch());
  s->user = r.String("CVMFS_USER", s->user);
  return Status::Ok();
}

}  // namespace

std::string ClientSettings::CacheDir() const {
  return JoinPath(cache_base, shared_cache ? "shared" : fqrn);
}

std::string ClientSettings::ObjectCacheDir() const {
  return alien_cache.empty() ? CacheDir() : alien_cache;
}

std::map<std::string, std::string> ClientSettings::Environment() const {
  std::map<std::string, std::string> env = parameters;
  env["CVMFS_ARCH"] = arch;
  env.emplace("CVMFS_FQRN", fqrn);
  return env;
}

Result<ClientSettings> ClientSettings::FromOptions(const OptionsManager& opts,
                                                   const std::string& fqrn,
                                                   const SystemPaths& paths) {
  if (!IsValidRepositoryName(fqrn)) {
    return Status::InvalidArgument(
        "'" + fqrn +
        "' is not a repository name (expected a "
        "fully qualified name such as atlas.cern.ch)");
  }
  ClientSettings s;
  s.fqrn = fqrn;
  s.org = fqrn.substr(0, fqrn.find('.'));
  const OptionReader r(opts);
  CVMFS_RETURN_IF_ERROR(ReadNetworkLists(r, paths, &s));
  CVMFS_RETURN_IF_ERROR(ReadNetworkNumbers(r, &s));
  CVMFS_ASSIGN_OR_RETURN(s.external,
                         ReadExternalDataSettings(r, s.fqrn, s.org, s.timeout_s,
                                                  s.timeout_direct_s));
  CVMFS_RETURN_IF_ERROR(ReadCache(r, paths, &s));
  CVMFS_RETURN_IF_ERROR(ReadKeys(r, paths, &s));
  CVMFS_RETURN_IF_ERROR(ReadKernel(r, &s));
  CVMFS_RETURN_IF_ERROR(ReadUpdates(r, &s));
  CVMFS_RETURN_IF_ERROR(ReadMisc(r, &s));
  CVMFS_RETURN_IF_ERROR(CheckRefusedParameters(opts));
  for (const std::string& name : opts.Names())
    s.parameters[name] = *opts.Get(name);
  for (std::string& w : UnknownParameterWarnings(opts))
    s.warnings.push_back(std::move(w));
  return s;
}

}  // namespace cvmfs
