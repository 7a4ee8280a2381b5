// Every configuration parameter the client uses, typed and validated once at
// mount (doc/client.md, "Configuration"). Defaults are those of CVMFS's
// default.conf (e.g. CVMFS_QUOTA_LIMIT=4000, CVMFS_NFILES=131072), which
// administrators see in `cvmfs_config showconfig`, not the smaller built-in
// fallbacks of the CVMFS code.
//
// Malformed values fail FromOptions() with an InvalidArgument naming the
// parameter, its value, its source file and what to write instead. A CVMFS
// parameter this client does not implement, set to anything but the value
// that matches its behaviour, fails too (known_parameters.h). Unknown
// CVMFS_* names do not fail; they are listed in `warnings`.
//
// An unset parameter and one set to the empty string both take the default
// (option_reader.h), except CVMFS_HTTP_PROXY and CVMFS_SERVER_URL, which are
// required.
//
// Thread safety: a plain value; build once in main() and share read-only.
#ifndef CLIENT_CLIENT_SETTINGS_H_
#define CLIENT_CLIENT_SETTINGS_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "client/external_settings.h"
#include "client/magic_xattrs_protection.h"
#include "client/magic_xattrs_visibility.h"
#include "cvmfs/config/options_manager.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace cvmfs {

struct ClientSettings {
  std::string fqrn;
  std::string org;  // fqrn up to the first dot, for @org@

  // Network (doc/operations.md, "Proxies, hosts and failover"). Proxy members
  // are URLs, "DIRECT" or "auto" (url_lists.h; "auto" only as a group of its
  // own in CVMFS_HTTP_PROXY, resolved at mount, client/proxy_autoconfig.h).
  // Fallback groups come after the regular ones; the rule that fallback
  // proxies disable DIRECT is the network layer's to apply (proxy_chain.h).
  std::vector<std::string> server_urls;                // CVMFS_SERVER_URL
  std::vector<std::vector<std::string>> proxy_groups;  // CVMFS_HTTP_PROXY
  std::vector<std::vector<std::string>>
      fallback_proxy_groups;  // CVMFS_FALLBACK_PROXY
  // CVMFS_PAC_URLS, ';'-separated; "auto" there is http://wpad/wpad.dat.
  std::vector<std::string> pac_urls = {"http://wpad/wpad.dat"};
  // Proxy names become their addresses (cvmfs/network/proxy_chain.h).
  int max_ipaddr_per_proxy = 0;  // CVMFS_MAX_IPADDR_PER_PROXY, 0 = all
  int ipfamily_prefer = 0;       // CVMFS_IPFAMILY_PREFER: 4, 6; 0 = IPv4 first
  int dns_timeout_s = 3;         // CVMFS_DNS_TIMEOUT, per attempt
  int dns_retries = 1;           // CVMFS_DNS_RETRIES
  int dns_min_ttl_s = 60;        // CVMFS_DNS_MIN_TTL
  int dns_max_ttl_s = 86400;     // CVMFS_DNS_MAX_TTL
  int timeout_s = 5;             // CVMFS_TIMEOUT (with a proxy)
  int timeout_direct_s = 10;     // CVMFS_TIMEOUT_DIRECT
  int64_t low_speed_limit = 1024;  // CVMFS_LOW_SPEED_LIMIT, bytes/s
  int max_retries = 1;             // CVMFS_MAX_RETRIES
  int backoff_init_s = 2;          // CVMFS_BACKOFF_INIT
  int backoff_max_s = 10;          // CVMFS_BACKOFF_MAX
  int proxy_reset_after_s = 300;   // CVMFS_PROXY_RESET_AFTER, 0 = never
  int host_reset_after_s = 1800;   // CVMFS_HOST_RESET_AFTER, 0 = never
  // CVMFS_MAX_CONNECTIONS (ours): parallel HTTP transfers per mount. Room
  // for every FUSE thread's demand read next to the prefetches.
  int max_connections = 16;
  // CVMFS_USE_GEOAPI: order server_urls by the Geo-API at mount
  // (cvmfs/network/geo_sort.h); CVMFS_PROXY_TEMPLATE: the proxy name sent in
  // its URL instead of the real one ("" = the real one).
  bool use_geoapi = false;
  std::string proxy_template;
  // CVMFS_MAX_SERVERS: keep only the first N hosts (after the Geo-API
  // ordered them); 0 = all.
  int max_servers = 0;
  // CVMFS_METADATA_DEADLINE (ours): the longest one download attempt of a
  // signed file or a catalog may take, in seconds; 0 = no limit. Unset:
  // kMetadataDeadlineFactor times the larger of CVMFS_TIMEOUT and
  // CVMFS_TIMEOUT_DIRECT (120 s with the defaults).
  static constexpr int kMetadataDeadlineFactor = 12;
  int metadata_deadline_s = kMetadataDeadlineFactor * 10;
  ExternalDataSettings external;  // CVMFS_EXTERNAL_* (external_settings.h)

  // Prefetch (ours; doc/client.md, "Prefetch").
  bool prefetch = true;             // CVMFS_PREFETCH
  bool bundles = true;              // CVMFS_BUNDLES
  int prefetch_files = 4096;        // CVMFS_PREFETCH_FILES, objects; 0 = off
  int64_t prefetch_budget_mb = 32;  // CVMFS_PREFETCH_BUDGET, megabytes
  int prefetch_parallel = 8;        // CVMFS_PREFETCH_PARALLEL, transfers
  // CVMFS_PREFETCH_SPECULATE_MS: speculation (the files of subdirectories)
  // only while demand downloads take at least this long; 0 = always.
  int prefetch_speculate_ms = 6;

  // Cache (doc/client.md, "The cache").
  std::string cache_base;         // CVMFS_CACHE_BASE, default /var/lib/cvmfs
  bool shared_cache = true;       // CVMFS_SHARED_CACHE
  int64_t quota_limit_mb = 4000;  // CVMFS_QUOTA_LIMIT, -1 = unmanaged
  // CVMFS_ALIEN_CACHE: the objects live in this directory, shared by many
  // nodes (a cluster file system), unmanaged; needs CVMFS_QUOTA_LIMIT=-1
  // and CVMFS_SHARED_CACHE=no, as CVMFS. Empty = the objects live in
  // CacheDir().
  std::string alien_cache;

  // Signatures: CVMFS_PUBLIC_KEY if set, else every *.pub in keys_dir.
  std::string keys_dir;  // CVMFS_KEYS_DIR
  std::vector<std::string> public_keys;

  // Kernel and FUSE.
  int kcache_timeout_s = 60;       // CVMFS_KCACHE_TIMEOUT
  int memcache_size_mb = 16;       // CVMFS_MEMCACHE_SIZE
  int statfs_cache_timeout_s = 0;  // CVMFS_STATFS_CACHE_TIMEOUT, 0 = off
  bool claim_ownership = true;     // CVMFS_CLAIM_OWNERSHIP
  bool check_permissions = true;   // CVMFS_CHECK_PERMISSIONS
  bool hide_magic_xattrs = false;  // CVMFS_HIDE_MAGIC_XATTRS
  // CVMFS_MAGIC_XATTRS_VISIBILITY (rootonly); CVMFS_HIDE_MAGIC_XATTRS=yes
  // means never unless the visibility is set too, as CVMFS.
  client::MagicXattrsVisibility magic_xattrs_visibility =
      client::MagicXattrsVisibility::kRootOnly;
  // CVMFS_XATTR_PROTECTED_XATTRS, CVMFS_XATTR_PRIVILEGED_GIDS.
  client::MagicXattrsProtection xattr_protection;
  bool enforce_acls = false;  // CVMFS_ENFORCE_ACLS (kernel checks ACLs)
  int64_t nfiles = 131072;    // CVMFS_NFILES (RLIMIT_NOFILE)

  // Updates (doc/client.md, "Revision updates"). A pinned tag, date or root
  // hash means no automatic updates, whatever CVMFS_AUTO_UPDATE says.
  int64_t max_ttl_min = 0;  // CVMFS_MAX_TTL, 0 = catalog TTL only
  bool auto_update = true;  // CVMFS_AUTO_UPDATE
  // CVMFS_NOTIFICATION_SERVER (doc/notifications.md); empty: none.
  std::string notification_server;
  std::optional<std::string> repository_tag;  // CVMFS_REPOSITORY_TAG
  std::optional<int64_t> repository_date;     // CVMFS_REPOSITORY_DATE, UTC
  std::optional<Digest> root_hash;            // CVMFS_ROOT_HASH

  std::string debuglog;  // CVMFS_DEBUGLOG, empty = off
  // Syslog (client/daemon_log.h): the priority of normal messages
  // (1 debug, 2 info, 3 notice), the local facility (0..7, -1 = LOG_USER),
  // and the "(prefix) " of every line, the fqrn unless set.
  int syslog_level = 3;        // CVMFS_SYSLOG_LEVEL
  int syslog_facility = -1;    // CVMFS_SYSLOG_FACILITY
  std::string syslog_prefix;   // CVMFS_SYSLOG_PREFIX
  std::string arch;            // CVMFS_ARCH, else uname -m
  std::string user = "cvmfs";  // CVMFS_USER (recorded; mount drops to it)

  // Every option as read (name → value), the base of Environment().
  std::map<std::string, std::string> parameters;
  // Unknown CVMFS_* parameters (known_parameters.h), one message each.
  std::vector<std::string> warnings;

  // $CVMFS_CACHE_BASE/shared, or $CVMFS_CACHE_BASE/<fqrn> if not shared:
  // the control socket, the repository lock and, without an alien cache,
  // the objects (CVMFS's workspace).
  std::string CacheDir() const;
  // Where the objects are: the alien cache if set, else CacheDir().
  std::string ObjectCacheDir() const;

  // The variables variant symlinks ($(VAR), symlink_expansion.h) expand
  // from: every configuration parameter plus CVMFS_ARCH and CVMFS_FQRN, as
  // CVMFS exports them into its process environment.
  std::map<std::string, std::string> Environment() const;

  static Result<ClientSettings> FromOptions(const OptionsManager& opts,
                                            const std::string& fqrn,
                                            const SystemPaths& paths);
};

}  // namespace cvmfs

#endif  // CLIENT_CLIENT_SETTINGS_H_
