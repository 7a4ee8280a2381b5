#include "client/talk/talk_commands.h"

#include <sys/statvfs.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>

#include "client/catalog_set.h"
#include "client/content_request.h"
#include "client/magic_xattrs.h"
#include "client/prefetch/prefetcher_report.h"
#include "client/talk/talk_metrics.h"
#include "client/talk/talk_reports.h"
#include "cvmfs/text.h"

namespace cvmfs::client {

namespace {

constexpr uint64_t kMiB = 1024 * 1024;

// A whole non-negative decimal number, or nullopt.
std::optional<uint64_t> ParseNumber(const std::string& text) {
  return cvmfs::ParseUint64(text, 15);
}

std::vector<std::string> Words(const std::string& text) {
  std::vector<std::string> out;
  size_t pos = 0;
  while ((pos = text.find_first_not_of(" \t", pos)) != std::string::npos) {
    size_t end = text.find_first_of(" \t", pos);
    out.push_back(text.substr(
        pos, end == std::string::npos ? std::string::npos : end - pos));
    pos = end;
  }
  return out;
}

std::string Failed(const Status& st) {
  return "Failed: " + st.message() + "\n";
}

}  // namespace

TalkCommands::TalkCommands(TalkContext context) : context_(std::move(context)) {
  RegisterCache();
  RegisterFiles();
  RegisterRevision();
  RegisterNetwork();
  RegisterProcess();
  RegisterPrefetchLists();
  // "cache list pinned" must be tried before "cache list".
  std::stable_sort(commands_.begin(), commands_.end(),
                   [](const Command& a, const Command& b) {
                     return a.name.size() > b.name.size();
                   });
}

void TalkCommands::Add(std::string name, bool takes_args, Handler handler) {
  commands_.push_back(Command{std::move(name), takes_args, std::move(handler)});
}

std::string TalkCommands::Execute(const std::string& line) {
  for (const Command& c : commands_) {
    if (line == c.name) return c.handler("");  // without arguments: usage
    if (c.takes_args && line.compare(0, c.name.size() + 1, c.name + " ") == 0) {
      std::string args = line.substr(c.name.size() + 1);
      size_t begin = args.find_first_not_of(" \t");
      return c.handler(begin == std::string::npos ? "" : args.substr(begin));
    }
  }
  return "unknown command\n";
}

void TalkCommands::RegisterCache() {
  Add("cache size", false, [this](const std::string&) {
    if (!cache()->managed())
      return std::string("Cache cannot report its size\n");
    return FormatCacheSize(cache()->usage());
  });
  Add("cache instance", false, [this](const std::string&) {
    return "Posix cache manager (cache directory: " + cache()->dir() + ")\n";
  });
  auto list = [this](bool pinned_only, bool catalogs_only) {
    if (!cache()->managed())
      return std::string("Cache cannot list its entries\n");
    std::string out;
    for (const cache::PosixCache::Entry& e : cache()->List(pinned_only)) {
      if (catalogs_only && e.type != cache::ObjectType::kCatalog) continue;
      out += (e.description.empty() ? e.hash : e.description) + "\n";
    }
    return out;
  };
  Add("cache list", false,
      [list](const std::string&) { return list(false, false); });
  Add("cache list pinned", false,
      [list](const std::string&) { return list(true, false); });
  Add("cache list catalogs", false,
      [list](const std::string&) { return list(false, true); });
  Add("cache limit get", false, [this](const std::string&) {
    if (!cache()->managed())
      return std::string("Cache is unmanaged (no limit)\n");
    return "Current cache limit is " +
           std::to_string(cache()->usage().limit / kMiB) + " MB\n";
  });
  Add("cache limit set", true,
      [this](const std::string& a) { return CacheLimitSet(a); });
  Add("cleanup", true, [this](const std::string& a) { return Cleanup(a); });
}

void TalkCommands::RegisterFiles() {
  Add("evict", true, [this](const std::string& a) { return Evict(a); });
  Add("pin", true, [this](const std::string& a) { return Pin(a); });
}

void TalkCommands::RegisterRevision() {
  Add("revision", false, [this](const std::string&) {
    return std::to_string(fs()->revision().revision) + "\n";
  });
  Add("remount", false, [this](const std::string&) { return Remount(false); });
  Add("remount sync", false,
      [this](const std::string&) { return Remount(true); });
  Add("open catalogs", false, [this](const std::string&) {
    auto catalogs = fs()->catalogs();  // keeps the set alive while printing
    return FormatCatalogHierarchy(catalogs->Attached());
  });
  Add("max ttl info", false, [this](const std::string&) {
    int64_t ttl = context_.mount->max_ttl_s();
    return ttl <= 0 ? std::string("unset\n")
                    : std::to_string(ttl / 60) + " minutes\n";
  });
  Add("max ttl set", true,
      [this](const std::string& a) { return MaxTtlSet(a); });
}

void TalkCommands::RegisterNetwork() {
  const std::string no_http =
      "No HTTP fetcher (repository served without network)\n";
  Add("host info", false, [this, no_http](const std::string&) {
    if (!context_.http) return no_http;
    return FormatHostInfo(context_.http->Hosts(), context_.http->CurrentHost(),
                          context_.http->HostsGeoOrdered());
  });
  // As CVMFS: "OK" once the hosts are ordered, "Failed" otherwise (the
  // reasons go to the log).
  Add("host probe geo", false, [this, no_http](const std::string&) {
    if (!context_.http) return no_http;
    return std::string(
        context_.mount->ProbeGeo(context_.http).ok() ? "OK\n" : "Failed\n");
  });
  Add("host switch", false, [this, no_http](const std::string&) {
    if (!context_.http) return no_http;
    context_.http->SwitchHost();
    return std::string("OK\n");
  });
  Add("host set", true, [this](const std::string& a) { return HostSet(a); });
  Add("proxy info", false, [this, no_http](const std::string&) {
    if (!context_.http) return no_http;
    return FormatProxyInfo(context_.http->ProxyInfo());
  });
  auto proxy_switch = [this, no_http](const std::string&) {
    if (!context_.http) return no_http;
    context_.http->SwitchProxy();
    return std::string("OK\n");
  };
  Add("proxy switch", false, proxy_switch);
  Add("proxy group switch", false, proxy_switch);
  Add("proxy set", true, [this](const std::string& a) { return ProxySet(a); });
  Add("timeout info", false, [this, no_http](const std::string&) {
    if (!context_.http) return no_http;
    return "Timeout with proxy: " + std::to_string(context_.http->timeout_s()) +
           "s\nTimeout without proxy: " +
           std::to_string(context_.http->timeout_direct_s()) + "s\n";
  });
  Add("timeout set", true,
      [this](const std::string& a) { return TimeoutSet(a); });
}

void TalkCommands::RegisterProcess() {
  Add("internal affairs", false,
      [this](const std::string&) { return InternalAffairs(); });
  Add("metrics prometheus", false,
      [this](const std::string&) { return MetricsPrometheus(); });
  Add("prefetch info", false, [this](const std::string&) {
    Prefetcher* p = fs()->prefetcher();
    return FormatPrefetchInfo(p->options(), p->counters());
  });
  Add("reset error counters", false, [this](const std::string&) {
    fs()->ResetErrorCounters();
    return std::string("OK\n");
  });
  Add("parameters", false,
      [this](const std::string&) { return context_.parameters; });
  Add("pid", false,
      [](const std::string&) { return std::to_string(::getpid()) + "\n"; });
  Add("pid cachemgr", false, [this](const std::string&) {
    const pid_t pid =
        context_.cache_manager_pid ? context_.cache_manager_pid() : 0;
    if (pid == 0) return std::string("no cache manager\n");
    return std::to_string(pid) + "\n";
  });
  Add("mountpoint", false,
      [this](const std::string&) { return context_.mountpoint + "\n"; });
  Add("version", false, [](const std::string&) {
    return std::string(kClientVersion) + " (CernVM-FS Fuse Module)\n" +
           kClientVersion + " (Loader)\n";
  });
}

std::string TalkCommands::CacheLimitSet(const std::string& args) {
  auto mb = ParseNumber(args);
  if (!mb || *mb == 0) return "Usage: cache limit set <MB>\n";
  if (!cache()->managed()) return "Cache cannot set its limit (unmanaged)\n";
  fs()->CloseIdleFiles();  // a lower limit may need their objects gone
  Status st = cache()->SetLimit(static_cast<int64_t>(*mb * kMiB));
  return st.ok() ? "OK\n" : Failed(st);
}

std::string TalkCommands::Cleanup(const std::string& args) {
  auto mb = ParseNumber(args);
  if (!mb) return "Usage: cleanup <MB>\n";
  if (!cache()->managed()) return "Cache cannot trigger eviction\n";
  fs()->CloseIdleFiles();
  Status st = cache()->Cleanup(*mb * kMiB);
  if (st.ok()) return "OK\n";
  if (st.code() == Status::Code::kBusy)
    return "Not fully cleaned (there might be pinned chunks)\n";
  return Failed(st);
}

Result<std::vector<ObjectRequest>> TalkCommands::ObjectsOf(
    const std::string& raw) {
  std::string path = raw;
  const std::string& mnt = context_.mountpoint;
  if (!mnt.empty() && path.compare(0, mnt.size() + 1, mnt + "/") == 0)
    path = path.substr(mnt.size());
  while (path.size() > 1 && path.back() == '/') path.pop_back();
  if (path.empty() || path[0] != '/') path = "/" + path;
  if (path == "/") return Status::NotFound("/ is not a regular file");

  std::shared_ptr<CatalogSet> catalogs = fs()->catalogs();
  CVMFS_ASSIGN_OR_RETURN(MountedCatalog * catalog, catalogs->CatalogFor(path));
  CVMFS_ASSIGN_OR_RETURN(auto entry, catalog->Lookup(path));
  if (!entry || !entry->IsRegular())
    return Status::NotFound(path + " is not a regular file");
  std::vector<ObjectRequest> objects;
  if (!entry->chunked) {
    if (!entry->content_hash)
      return Status::Corruption(path + " has no content hash");
    objects.push_back(WholeContentRequest(path, *entry));
    return objects;
  }
  CVMFS_ASSIGN_OR_RETURN(auto chunks, catalog->Chunks(path));
  for (const FileChunk& chunk : chunks) {
    objects.push_back(ChunkContentRequest(path, *entry, chunk));
  }
  return objects;
}

std::string TalkCommands::Evict(const std::string& path) {
  if (path.empty()) return "Usage: evict <path>\n";
  auto objects = ObjectsOf(path);
  if (!objects.ok()) {
    if (objects.status().IsNotFound()) return "No such regular file\n";
    return Failed(objects.status());
  }
  fs()->CloseIdleFiles();
  size_t busy = 0;
  for (const ObjectRequest& r : *objects) {
    Status st = cache()->Evict(r.digest);
    if (st.code() == Status::Code::kBusy) {
      ++busy;
    } else if (!st.ok() && !st.IsNotFound()) {
      return Failed(st);
    }
  }
  if (busy > 0)
    return "Not evicted: " + std::to_string(busy) + " of " +
           std::to_string(objects->size()) + " objects are open or pinned\n";
  return "OK\n";
}

std::string TalkCommands::Pin(const std::string& path) {
  if (path.empty()) return "Usage: pin <path>\n";
  auto objects = ObjectsOf(path);
  if (!objects.ok()) return "No such regular file or pinning failed\n";
  for (const ObjectRequest& r : *objects) {
    // Pinning needs the object present: hold it open while pinning.
    auto handle = fs()->objects()->OpenReferenced(r);
    if (!handle.ok())
      return "No such regular file or pinning failed (" +
             handle.status().message() + ")\n";
    Status st = cache()->Pin(r.digest);
    if (!st.ok())
      return "No such regular file or pinning failed (" + st.message() + ")\n";
  }
  return "OK\n";
}

std::string TalkCommands::Remount(bool sync) {
  auto report = context_.mount->CheckForUpdate(sync);
  if (report.ok()) return *report + "\n";
  if (report.status().code() == Status::Code::kNoSpace)
    return "Failed (no space)\n";
  return "Failed (" + report.status().message() + ")\n";
}

std::string TalkCommands::MaxTtlSet(const std::string& args) {
  auto minutes = ParseNumber(args);
  if (!minutes) return "Usage: max ttl set <minutes>\n";
  context_.mount->set_max_ttl_s(static_cast<int64_t>(*minutes) * 60);
  return "OK\n";
}

std::string TalkCommands::HostSet(const std::string& args) {
  if (args.empty()) return "Usage: host set <host list>\n";
  if (!context_.http)
    return "No HTTP fetcher (repository served without network)\n";
  auto hosts = ParseHostList(args, fs()->options().fqrn);
  if (!hosts.ok()) return Failed(hosts.status());
  Status st = context_.http->SetHosts(std::move(hosts).value());
  return st.ok() ? "OK\n" : Failed(st);
}

std::string TalkCommands::ProxySet(const std::string& args) {
  if (args.empty()) return "Usage: proxy set <proxy list>\n";
  if (!context_.http)
    return "No HTTP fetcher (repository served without network)\n";
  auto groups = ParseProxyList(args);
  if (groups.ok() && context_.resolve_auto_proxies)
    groups = context_.resolve_auto_proxies(*groups);
  if (!groups.ok())
    return "Failed, no valid proxies (" + groups.status().message() + ")\n";
  Status st = context_.http->SetProxies(std::move(groups).value());
  return st.ok() ? "OK\n" : "Failed, no valid proxies (" + st.message() + ")\n";
}

std::string TalkCommands::TimeoutSet(const std::string& args) {
  std::vector<std::string> words = Words(args);
  const char* usage =
      "Usage: timeout set <proxy> [<direct>] (seconds, at least 1)\n";
  if (words.empty() || words.size() > 2) return usage;
  auto proxy = ParseNumber(words[0]);
  auto direct =
      words.size() == 2 ? ParseNumber(words[1]) : std::optional<uint64_t>();
  if (!proxy || *proxy == 0 || (words.size() == 2 && (!direct || *direct == 0)))
    return usage;
  if (!context_.http)
    return "No HTTP fetcher (repository served without network)\n";
  int direct_s =
      direct ? static_cast<int>(*direct) : context_.http->timeout_direct_s();
  context_.http->SetTimeouts(static_cast<int>(*proxy), direct_s);
  return "OK\n";
}

std::string TalkCommands::InternalAffairs() {
  const MountStatistics stats = fs()->Statistics();
  const FetchCounters& fetch = stats.fetch;
  const cache::PosixCache::Usage usage = cache()->usage();
  std::vector<Counter> counters = {
      {"cvmfs.n_fs_open", stats.total_opens, "overall number of open() calls"},
      {"cvmfs.n_fs_open_files", stats.open_files, "files open now"},
      {"cvmfs.n_fs_open_dirs", stats.open_dirs, "directories open now"},
      {"cvmfs.n_io_error", stats.io_errors,
       "I/O errors reported to the kernel"},
      {"inode_tracker.n_known", stats.known_inodes,
       "inodes remembered (at most CVMFS_MEMCACHE_SIZE of them)"},
      {"inode_tracker.sz_bytes", stats.inode_bytes,
       "estimated memory of the inodes remembered"},
      {"inode_tracker.n_evicted", stats.inode_evictions,
       "inodes dropped for room (the kernel may still hold them)"},
      {"inode_tracker.n_rebuilt", stats.inode_rebuilds,
       "dropped inodes rebuilt from their number"},
      {"inode_tracker.inode_max", stats.inode_max,
       "highest inode number handed out"},
      {"catalog_mgr.n_loaded", stats.catalogs, "catalogs attached"},
      {"fetch.n_hits", fetch.hits, "objects served from the cache"},
      {"fetch.n_downloads", fetch.downloads, "objects downloaded and verified"},
      {"fetch.n_collapsed", fetch.collapsed,
       "requests that waited for the same download"},
      {"fetch.n_io_errors", fetch.io_errors, "object requests that failed"},
      {"fetch.sz_transferred_bytes", fetch.bytes_downloaded,
       "bytes received (compressed)"},
      {"fetch.n_bundles", fetch.bundles.fetched, "bundles downloaded"},
      {"fetch.sz_bundle_bytes", fetch.bundles.bytes,
       "bytes of bundles received"},
      {"fetch.n_bundle_members_stored", fetch.bundles.members_stored,
       "objects taken from bundles into the cache"},
      {"fetch.n_bundle_members_skipped", fetch.bundles.members_skipped,
       "bundle members that were cached already"},
      {"fetch.n_bundle_members_failed", fetch.bundles.members_failed,
       "bundle members that did not verify (dropped)"},
      {"fetch.n_bundle_errors", fetch.bundles.errors,
       "bundles that failed (missing, corrupted, unreachable)"},
      {"fetch.n_bundle_fallbacks", fetch.bundles.fallbacks,
       "objects fetched on their own after their bundle"},
      {"cache.sz_size", usage.size, "bytes in the cache"},
      {"cache.sz_pinned", usage.pinned, "bytes pinned (loaded catalogs, pin)"},
      {"cache.sz_limit", usage.limit, "quota limit in bytes"},
      {"cache.n_hits", usage.hits, "cache lookups that found the object"},
      {"cache.n_misses", usage.misses, "cache lookups that did not"},
      {"cache.n_evictions", usage.evictions, "objects evicted by cleanups"},
  };
  for (Counter& c : PrefetchCounterList(stats.prefetch))
    counters.push_back(std::move(c));
  if (context_.http) {
    const HttpFetcher::Counters http = context_.http->counters();
    counters.push_back({"download.n_requests", http.requests, "HTTP requests"});
    counters.push_back({"download.sz_transferred_bytes", http.bytes,
                        "body bytes over all attempts"});
    counters.push_back({"download.n_retries", http.retries,
                        "attempts repeated on the same route"});
    counters.push_back(
        {"download.n_failovers", http.failovers, "host or proxy switches"});
    counters.push_back(
        {"download.n_errors", http.errors, "requests failed after all routes"});
    counters.push_back({"download.n_connection_limit", http.connection_limit,
                        "transfers allowed in flight now"});
    counters.push_back({"download.n_connections_peak", http.connections_peak,
                        "most transfers in flight at once"});
  }
  std::string out =
      "Inode Generation:\n  next inode: " + std::to_string(stats.inode_max) +
      "\n";
  out += "\nCache Mode: read-write\n";
  out += "Cache Directory: " + cache()->dir() + "\n";
  const int64_t uptime_s =
      std::chrono::duration_cast<std::chrono::seconds>(stats.uptime).count();
  out += "Revision: " + std::to_string(stats.revision.revision) + "\n";
  out += "Uptime: " + std::to_string(uptime_s / 60) + " minutes\n";
  return out + "\nRaw Counters:\n" + FormatCounters(counters);
}

std::string TalkCommands::MetricsPrometheus() {
  MountMetrics m;
  m.stats = fs()->Statistics();
  m.fqrn = m.stats.fqrn;
  m.mountpoint = context_.mountpoint;
  m.version = kClientVersion;
  m.cache_managed = cache()->managed();
  m.usage = cache()->usage();
  struct statvfs vfs {};
  if (::statvfs(cache()->dir().c_str(), &vfs) == 0) {
    m.volume_bytes = static_cast<uint64_t>(vfs.f_blocks) * vfs.f_frsize;
    m.volume_avail_bytes = static_cast<uint64_t>(vfs.f_bavail) * vfs.f_frsize;
  }
  if (context_.http) {
    MountMetrics::Network n;
    n.counters = context_.http->counters();
    n.routes = context_.http->RouteCounters();
    n.proxy_groups = context_.http->Proxies();
    n.active_proxy = context_.http->CurrentProxy();
    n.timeout_s = context_.http->timeout_s();
    n.timeout_direct_s = context_.http->timeout_direct_s();
    m.network = std::move(n);
  }
  m.pid = ::getpid();
  if (auto cpu = ReadProcessCpuSeconds()) {
    m.cpu_user_s = cpu->first;
    m.cpu_system_s = cpu->second;
  }
  m.now_epoch_s = std::chrono::duration_cast<std::chrono::seconds>(
                      std::chrono::system_clock::now().time_since_epoch())
                      .count();
  m.sqlite = SqliteMemory();
  const auto n = context_.mount->notification_counters();
  m.notifications.received = n.received;
  m.notifications.ignored = n.ignored;
  m.notifications.triggered = n.triggered;
  return FormatPrometheusMetrics(m);
}

}  // namespace cvmfs::client
