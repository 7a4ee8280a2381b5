#include "client/fuse/mount_daemon.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cache/cache_owner.h"
#include "client/client_settings.h"
#include "client/daemon_log.h"
#include "client/fuse/fuse_adapter.h"
#include "client/magic_xattrs.h"
#include "client/notification_follower.h"
#include "client/proxy_autoconfig.h"
#include "client/repository_lock.h"
#include "client/repository_mount.h"
#include "client/talk/talk_commands.h"
#include "client/talk/talk_server.h"
#include "client/talk/talk_socket.h"
#include "cvmfs/config/config_repository_reach.h"
#include "cvmfs/config/options_manager.h"
#include "cvmfs/credentials.h"
#include "cvmfs/file_util.h"
#include "cvmfs/system_paths.h"

namespace cvmfs::client {

namespace {

// This program's path, to start it again as the cache manager.
std::string SelfExecutable() {
  char buf[4096];
  ssize_t n = ::readlink("/proc/self/exe", buf, sizeof(buf) - 1);
  return n > 0 ? std::string(buf, static_cast<size_t>(n)) : std::string();
}

MountConfig ToMountConfig(const ClientSettings& s) {
  MountConfig c;
  c.fqrn = s.fqrn;
  c.http.hosts = s.server_urls;
  c.http.proxy_groups = s.proxy_groups;  // "auto" resolved by the caller
  c.http.fallback_proxy_groups = s.fallback_proxy_groups;
  c.http.proxy_dns.max_ipaddr_per_proxy =
      static_cast<size_t>(s.max_ipaddr_per_proxy);
  c.http.proxy_dns.prefer = s.ipfamily_prefer == 6   ? IpPreference::kIpv6
                            : s.ipfamily_prefer == 4 ? IpPreference::kIpv4
                                                     : IpPreference::kSystem;
  c.http.proxy_dns.min_ttl = std::chrono::seconds(s.dns_min_ttl_s);
  c.http.proxy_dns.max_ttl = std::chrono::seconds(s.dns_max_ttl_s);
  c.http.system_dns.timeout_ms = s.dns_timeout_s * 1000;
  c.http.system_dns.retries = s.dns_retries;
  c.http.timeout_s = s.timeout_s;
  c.http.timeout_direct_s = s.timeout_direct_s;
  c.http.low_speed_limit = static_cast<int>(s.low_speed_limit);
  c.http.metadata_deadline_ms = s.metadata_deadline_s * 1000;
  c.http.max_retries = s.max_retries;
  c.http.backoff_init_ms = s.backoff_init_s * 1000;
  c.http.backoff_max_ms = s.backoff_max_s * 1000;
  c.http.proxy_reset_after_s = s.proxy_reset_after_s;
  c.http.host_reset_after_s = s.host_reset_after_s;
  c.http.max_connections = s.max_connections;
  c.http.user_agent = std::string("cvmfs Fuse ") + kClientVersion;
  c.geo.enabled = s.use_geoapi;
  c.geo.proxy_template = s.proxy_template;
  c.geo.max_servers = s.max_servers;
  c.external_http = ExternalHttpOptions(c.http, s.external);
  c.cache.dir = s.ObjectCacheDir();
  c.cache.alien = !s.alien_cache.empty();
  c.cache.quota_limit =
      s.quota_limit_mb < 0 ? -1 : s.quota_limit_mb * 1024 * 1024;
  // CVMFS_SHARED_CACHE=yes: $CVMFS_CACHE_BASE/shared, one quota for every
  // mount, kept by a cache manager that this program runs (`__cachemgr__`).
  c.cache.shared = s.shared_cache;
  c.cache.manager_exe = SelfExecutable();
  c.cache.client_name = s.fqrn;
  c.public_key_files = s.public_keys;
  c.tag = s.repository_tag.value_or("");
  c.date = s.repository_date;
  c.root_hash = s.root_hash;
  c.auto_update = s.auto_update;
  c.max_ttl_s = s.max_ttl_min * 60;
  c.fs.fqrn = s.fqrn;
  c.fs.claim_ownership = s.claim_ownership;
  c.fs.uid = ::getuid();
  c.fs.gid = ::getgid();
  c.fs.kcache_timeout = s.kcache_timeout_s;
  c.fs.memcache_bytes = static_cast<size_t>(s.memcache_size_mb) << 20;
  c.fs.prefetch = PrefetchOptionsFrom(s);
  c.fs.bundles = s.bundles;
  c.fs.magic_xattrs_visibility = s.magic_xattrs_visibility;
  c.fs.xattr_protection = s.xattr_protection;
  for (const std::string& key : s.public_keys) {
    auto text = ReadFile(key);
    if (text.ok()) c.fs.public_keys.push_back(*text);
  }
  c.fs.tag = c.tag;
  auto env =
      std::make_shared<std::map<std::string, std::string>>(s.Environment());
  c.fs.variables =
      [env](const std::string& name) -> std::optional<std::string> {
    auto it = env->find(name);
    if (it == env->end()) return std::nullopt;
    return it->second;
  };
  return c;
}

// Where "auto" looks for proxies; the last discovery is kept in the cache
// directory as proxies.<fqrn>.
AutoProxyOptions AutoProxyOptionsFor(const ClientSettings& s) {
  AutoProxyOptions o;
  o.pac_urls = s.pac_urls;
  o.hosts = s.server_urls;
  if (const char* env = std::getenv("http_proxy")) o.http_proxy_env = env;
  o.cache_file = s.CacheDir() + "/proxies." + s.fqrn;
  return o;
}

// CVMFS_HTTP_PROXY with "auto": the proxies PAC files name
// (client/proxy_autoconfig.h), fetched with the mount's HTTP settings; the
// last discovery is kept in the cache directory as proxies.<fqrn>.
Result<ProxyGroups> DiscoverProxies(const ClientSettings& s,
                                    const HttpFetcherOptions& http,
                                    DaemonLog* log) {
  const CombinedProxies combined =
      CombineProxyLists(s.proxy_groups, s.fallback_proxy_groups);
  if (combined.dropped_direct_from_fallback)
    log->Warning(
        "CVMFS_FALLBACK_PROXY: fallback proxies do not support "
        "DIRECT, removing it");
  if (combined.dropped_direct_from_regular)
    log->Info(
        "CVMFS_HTTP_PROXY: skipping DIRECT proxy to use the fallback "
        "proxies");
  if (!HasAutoProxy(s.proxy_groups)) return s.proxy_groups;
  return ResolveAutoProxies(s.proxy_groups, AutoProxyOptionsFor(s),
                            HttpPacFetch(http),
                            [log](const std::string& m) { log->Info(m); });
}

// Forks; the parent waits until the child reports the mount (or its
// failure) through a pipe and exits accordingly. Returns the write end in
// the child.
int Daemonize() {
  int fds[2];
  if (::pipe(fds) != 0) {
    std::perror("cvmfs2: pipe");
    std::exit(1);
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    std::perror("cvmfs2: fork");
    std::exit(1);
  }
  if (pid > 0) {
    ::close(fds[1]);
    std::string report;
    char buf[512];
    ssize_t n;
    while ((n = ::read(fds[0], buf, sizeof(buf))) > 0) report.append(buf, n);
    if (report == "OK") std::exit(0);
    std::cerr << "cvmfs2: " << (report.empty() ? "mount process died" : report)
              << "\n";
    std::exit(1);
  }
  ::close(fds[0]);
  // No setsid() before the mount: see DetachStdio().
  return fds[1];
}

void Report(int fd, const std::string& message) {
  if (fd < 0) return;
  (void)!::write(fd, message.data(), message.size());
  ::close(fd);
}

// Leaves the caller's session once mounted. Not earlier: automount runs
// mount(8) in its own process group, and the kernel makes every other
// process that walks onto the mount point wait until the mount is done, so
// a mount(2) from a new session would wait for itself forever.
void DetachStdio() {
  ::setsid();
  int null = ::open("/dev/null", O_RDWR);
  if (null < 0) return;
  ::dup2(null, 0);
  ::dup2(null, 1);
  ::dup2(null, 2);
  if (null > 2) ::close(null);
}

// The control socket cvmfs_talk speaks to (cvmfs_io.<fqrn> in the cache
// directory). A mount without it still works; the failure is logged.
std::unique_ptr<TalkServer> StartTalk(RepositoryMount* mount,
                                      const ClientSettings& settings,
                                      const OptionsManager& options,
                                      const std::string& mountpoint,
                                      const HttpFetcherOptions& pac_http,
                                      DaemonLog* log) {
  TalkContext context;
  // As CVMFS: `proxy set` resolves "auto" too, without the cache file.
  context.resolve_auto_proxies = [settings, pac_http,
                                  log](const ProxyGroups& groups) {
    AutoProxyOptions o = AutoProxyOptionsFor(settings);
    o.cache_file.clear();
    return ResolveAutoProxies(groups, o, HttpPacFetch(pac_http),
                              [log](const std::string& m) { log->Info(m); });
  };
  context.mount = mount;
  context.http = mount->http();
  char resolved[PATH_MAX];
  context.mountpoint =
      ::realpath(mountpoint.c_str(), resolved) ? resolved : mountpoint;
  context.parameters = options.Dump(/*with_sources=*/true);
  context.cache_manager_pid = [mount] {
    return static_cast<pid_t>(mount->cache()->quota_manager_pid());
  };
  auto commands = std::make_shared<TalkCommands>(std::move(context));
  const std::string path = TalkSocketPath(settings.CacheDir(), settings.fqrn);
  auto server = TalkServer::Start(path, [commands](const std::string& line) {
    return commands->Execute(line);
  });
  if (!server.ok()) {
    log->Error("no control socket (cvmfs_talk will not reach this mount): " +
               server.status().ToString());
    return nullptr;
  }
  log->Debug("control socket " + path);
  return std::move(server).value();
}

// The repository's settings ($CVMFS_ROOTDIR/etc/cvmfs with the
// configuration repository that `reach` mounts, then the config= files,
// into `options`); null after telling stderr why not.
std::optional<ClientSettings> LoadSettings(const MountDaemonOptions& cl,
                                           const SystemPaths& paths,
                                           ConfigRepositoryReach* reach,
                                           OptionsManager* options) {
  Status st = options->LoadForRepository(paths, cl.fqrn, reach);
  for (const std::string& f : cl.config_files) {
    if (!st.ok()) break;
    st = options->ParseFile(f, cl.fqrn, paths);
  }
  for (const std::string& w : options->warnings())
    std::cerr << "cvmfs2: warning: " << w << "\n";
  if (!st.ok()) {
    std::cerr << "cvmfs2: configuration of " << cl.fqrn << ": " << st.message()
              << "\n";
    return std::nullopt;
  }
  auto settings = ClientSettings::FromOptions(*options, cl.fqrn, paths);
  if (!settings.ok()) {
    std::cerr << "cvmfs2: configuration of " << cl.fqrn << ": "
              << settings.status().message() << "\n";
    return std::nullopt;
  }
  for (const std::string& w : settings->warnings)
    std::cerr << "cvmfs2: warning: " << w << "\n";
  return std::move(settings).value();
}

// CVMFS_NFILES: as many descriptors as configured, or as the hard limit
// allows.
void RaiseFileLimit(int64_t nfiles) {
  struct rlimit rl;
  rl.rlim_cur = rl.rlim_max = static_cast<rlim_t>(nfiles);
  if (::setrlimit(RLIMIT_NOFILE, &rl) != 0 &&
      ::getrlimit(RLIMIT_NOFILE, &rl) == 0) {
    rl.rlim_cur = rl.rlim_max;  // raise the soft limit as far as allowed
    (void)::setrlimit(RLIMIT_NOFILE, &rl);
  }
}

FuseOptions ToFuseOptions(const MountDaemonOptions& cl,
                          const ClientSettings& settings) {
  FuseOptions fuse;
  fuse.mountpoint = cl.mountpoint;
  fuse.debug = cl.debug;
  fuse.mount_options = {"ro", "nodev", "fsname=cvmfs2"};
  if (::getuid() == 0) fuse.mount_options.push_back("allow_other");
  if (settings.check_permissions)
    fuse.mount_options.push_back("default_permissions");
  fuse.enforce_acls = settings.enforce_acls;
  // Every connection CVMFS_MAX_CONNECTIONS allows can serve a reader: the
  // FUSE loop never caps demand concurrency below it.
  fuse.max_threads = std::max(fuse.max_threads, settings.max_connections);
  for (const std::string& o : cl.fuse_options)
    if (o != "allow_other" || ::getuid() != 0) fuse.mount_options.push_back(o);
  return fuse;
}

// Running unprivileged (doc/security.md): cvmfs2 started by root switches
// to CVMFS_USER; the order is what makes that work:
//
//   root: read the configuration, hand the cache directory to the user
//   AssumeUser: effective ids = user, real/saved uid 0, no new privileges
//     RepositoryMount::Create: cache, cachedb, cache manager, catalogs,
//     the HTTP thread; all they create is the user's
//   RegainRoot: mount(2) only
//   DropToUser (FuseOptions::after_mount): every id, no capabilities
//     updater, control socket (the user's), serving
//
// Mounting first and loading the repository afterwards would expose an
// empty mount point while the catalogs load, and a failed load would need
// an unmount. Once dropped, the daemon cannot unmount: an unmount is
// root's (umount, cvmfs_config umount, autofs), and ends the session.
//
// The user to switch to: none when cvmfs2 does not run as root (it stays
// who it is) or CVMFS_USER names root. Either way, when run by root, the
// cache directory is handed to CVMFS_USER first (to root too: a cache a
// root client wrote to is then taken over again by the next unprivileged
// one, not left with root's files in it).
Result<std::optional<UserIds>> PrepareUser(const ClientSettings& settings,
                                           cache::OwnerChange* handed) {
  if (::geteuid() != 0) return std::optional<UserIds>();
  auto user = LookUpUser(settings.user);
  if (!user.ok())
    return user.status().Annotate("CVMFS_USER=" + settings.user +
                                  " (the user cvmfs2 runs as)");
  auto change = cache::HandCacheTo(settings.CacheDir(), *user);
  if (!change.ok())
    return change.status().Annotate(
        "cannot hand the cache directory to CVMFS_USER=" + user->name);
  *handed = *change;
  if (user->uid == 0) return std::optional<UserIds>();
  return std::optional<UserIds>(*user);
}

// The switch for good right after mount(2), and what the session's end
// then leaves to root. `log` outlives the session.
void DropAfterMount(const UserIds& user, const std::string& mountpoint,
                    DaemonLog* log, FuseOptions* fuse) {
  fuse->after_mount = [user, log] {
    Status st = DropToUser(user);
    if (!st.ok())
      return st.Annotate("cannot switch to CVMFS_USER=" + user.name);
    log->Info("running as CVMFS_USER=" + user.name);
    return st;
  };
  fuse->root_unmounts = true;
  fuse->on_left_mounted = [user, mountpoint, log] {
    log->Error(mountpoint + " stays mounted without its daemon (running as " +
               "CVMFS_USER=" + user.name + ", it cannot unmount): root " +
               "unmounts it (umount " + mountpoint + ")");
  };
}

}  // namespace

int RunMountDaemon(const MountDaemonOptions& cl) {
  const SystemPaths paths = SystemPaths::FromEnvironment();
  OptionsManager options;
  // Holds the configuration repository mounted (its keys are read by
  // RepositoryMount::Create) until the repository is loaded.
  AutofsReach config_repository;
  std::optional<ClientSettings> settings =
      LoadSettings(cl, paths, &config_repository, &options);
  if (!settings) return 1;
  RaiseFileLimit(settings->nfiles);
  cache::OwnerChange handed;
  auto user = PrepareUser(*settings, &handed);
  if (!user.ok()) {
    std::cerr << "cvmfs2: cannot mount " << cl.fqrn << ": "
              << user.status().message() << "\n";
    return 1;
  }

  // Fork before any thread exists (the HTTP fetcher starts one).
  int report_fd = cl.foreground ? -1 : Daemonize();
  const SyslogOptions syslog_options{settings->syslog_level,
                                     settings->syslog_facility,
                                     settings->syslog_prefix};
  DaemonLog log(settings->debuglog, syslog_options,
                SystemSyslog(syslog_options));
  log.Debug("mounting " + cl.fqrn + " on " + cl.mountpoint);
  for (const std::string& w : options.warnings()) log.Warning(w);
  if (handed.taken_over)
    log.Info("took over " + settings->CacheDir() +
             " for CVMFS_USER=" + settings->user + " (" +
             std::to_string(handed.entries) + " entries chowned)");
  // Set before any thread starts (see credentials.h).
  Status assumed = *user ? AssumeUser(**user) : Status::Ok();
  if (!assumed.ok()) {
    std::string msg = "cannot switch to CVMFS_USER=" + settings->user + ": " +
                      assumed.message();
    log.Error(msg);
    if (report_fd < 0) std::cerr << "cvmfs2: " << msg << "\n";
    Report(report_fd, msg);
    return 1;
  }

  // One mount per repository (as the user: the lock file is the user's).
  auto lock = LockRepository(settings->CacheDir(), cl.fqrn);
  if (!lock.ok()) {
    std::string msg =
        "cannot mount " + cl.fqrn + ": " + lock.status().message();
    log.Error(msg);
    if (report_fd < 0) std::cerr << "cvmfs2: " << msg << "\n";
    Report(report_fd, msg);
    return 1;
  }

  MountConfig mount_config = ToMountConfig(*settings);
  auto proxies = DiscoverProxies(*settings, mount_config.http, &log);
  if (!proxies.ok()) {
    std::string msg =
        "failed to mount " + cl.fqrn + ": " + proxies.status().message();
    log.Error(msg);
    if (report_fd < 0) std::cerr << "cvmfs2: " << msg << "\n";
    Report(report_fd, msg);
    return 1;
  }
  mount_config.http.proxy_groups = std::move(proxies).value();
  const HttpFetcherOptions pac_http = mount_config.http;
  if (*user) {
    // As CVMFS: CVMFS_CLAIM_OWNERSHIP shows the files as the client's user.
    mount_config.fs.uid = (*user)->uid;
    mount_config.fs.gid = (*user)->gid;
    mount_config.cache.manager_user = settings->user;
    mount_config.cache.owner = **user;
  }
  mount_config.blacklist_file = paths.EtcCvmfs() + "/blacklist";
  if (auto etc = options.ConfigRepositoryEtc(cl.fqrn, paths))
    mount_config.config_repository_blacklist_file = *etc + "/blacklist";
  // As CVMFS (which aborts): a blacklisted mounted revision is not served
  // any longer. SIGTERM ends the FUSE session, which unmounts, or, running
  // as CVMFS_USER, leaves the unmount to root (doc/security.md).
  mount_config.event_log = log.AsEventLog();
  mount_config.fs.log_buffer = [&log] { return log.recent().Text(); };
  mount_config.on_revision_blacklisted = [&log](const Status& why) {
    log.Error("unmounting: " + why.message());
    ::kill(::getpid(), SIGTERM);
  };
  auto mount = RepositoryMount::Create(
      std::move(mount_config), [&log](const std::string& m) { log.Debug(m); });
  config_repository.Release();
  if (!mount.ok()) {
    std::string msg =
        "failed to mount " + cl.fqrn + ": " + mount.status().message() +
        (*user ? " (running as CVMFS_USER=" + settings->user + ")" : "");
    log.Error(msg);
    if (report_fd < 0) std::cerr << "cvmfs2: " << msg << "\n";
    Report(report_fd, msg);
    return 1;
  }

  FuseOptions fuse = ToFuseOptions(cl, *settings);
  if (*user) {
    Status root = RegainRoot();  // for mount(2); dropped right after it
    if (!root.ok()) log.Error(root.message());  // the mount fails and says
    DropAfterMount(**user, cl.mountpoint, &log, &fuse);
  }
  std::unique_ptr<TalkServer> talk;  // from the mount to the unmount
  std::unique_ptr<NotificationFollower> follower;  // the same
  fuse.on_mounted = [&](const Status& s) {
    if (!s.ok()) {
      log.Error(s.message());
      if (report_fd < 0) std::cerr << "cvmfs2: " << s.message() << "\n";
      Report(report_fd, s.message());
      report_fd = -1;
      return;
    }
    log.Info("mounted " + cl.fqrn + " on " + cl.mountpoint);
    (*mount)->StartUpdater();
    if (!settings->notification_server.empty()) {
      follower = std::make_unique<NotificationFollower>(
          settings->notification_server, cl.fqrn,
          std::string("cvmfs Fuse ") + kClientVersion, mount->get(),
          log.AsEventLog());
      follower->Start();
      log.Info("following notifications from " + settings->notification_server);
    }
    talk = StartTalk(mount->get(), *settings, options, cl.mountpoint, pac_http,
                     &log);
    if (report_fd >= 0) {
      DetachStdio();
      Report(report_fd, "OK");
      report_fd = -1;
    }
  };
  fuse.on_stopping = [&] {
    talk.reset();
    follower.reset();  // before the updater it wakes
    (*mount)->StopUpdater();
  };
  const Status st = RunFuseSession((*mount)->file_system(), fuse);
  talk.reset();  // if the session ended without on_stopping
  follower.reset();
  log.Info("unmounted " + cl.fqrn + (st.ok() ? "" : ": " + st.message()));
  return st.ok() ? 0 : 1;
}

}  // namespace cvmfs::client
