// TalkCommands: what a mount answers on its control socket (cvmfs_talk,
// doc/operations.md, "cvmfs_talk"). Execute() takes one command line and
// returns the reply text, worded as CVMFS words it where CVMFS has the command
// (scripts parse "Current cache size is ...", "OK", "Catalog up to date", ...).
//
//   cache size | cache instance | cache list [pinned|catalogs]
//   cache limit get | cache limit set <MB> | cleanup <MB>
//   evict <path> | pin <path>
//   revision | remount [sync] | open catalogs | max ttl info | max ttl set
//   <min> host info | host switch | host set <urls> | host probe geo
//   proxy info | proxy switch |
//   proxy group switch | proxy set <proxies> timeout info | timeout set <proxy>
//   [<direct>] internal affairs | reset error counters | parameters pid | pid
//   cachemgr | mountpoint | version
//   prefetch record start|stop|status | prefetch lists (talk_prefetch_lists.cc)
//   metrics prometheus (talk_metrics.h)
//
// Anything else is answered "unknown command". Every reply ends with a
// newline.
//
// Paths (evict, pin) are repository paths ("/sw/lib/libfoo.so"); a path
// below the mountpoint is accepted too.
//
// Thread safety: Execute() may run concurrently with FUSE requests (it
// uses only the thread-safe accessors of the mount, its file system, cache
// and fetcher); the talk server calls it from one thread.
#ifndef CLIENT_TALK_TALK_COMMANDS_H_
#define CLIENT_TALK_TALK_COMMANDS_H_

#include <sys/types.h>

#include <functional>
#include <string>
#include <vector>

#include "client/object_fetcher.h"
#include "client/repository_mount.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

struct TalkContext {
  RepositoryMount* mount = nullptr;  // borrowed, required
  // The network to report and steer (mount->http() in cvmfs2); null for a
  // mount without HTTP (tests), whose network commands say so.
  HttpFetcher* http = nullptr;
  std::string mountpoint;
  // The effective configuration as `cvmfs_config showconfig` prints it
  // (OptionsManager::Dump(true)), for `parameters`.
  std::string parameters;
  // The pid of the cache manager process serving this mount's cache (a
  // shared cache); null or returning 0: there is none.
  std::function<pid_t()> cache_manager_pid;
  // Replaces the groups "auto" of a list given to `proxy set` by the
  // proxies PAC files name (client/proxy_autoconfig.h); unset: a list with
  // "auto" is refused.
  std::function<Result<ProxyGroups>(const ProxyGroups&)> resolve_auto_proxies;
};

class TalkCommands {
 public:
  explicit TalkCommands(TalkContext context);

  std::string Execute(const std::string& line);

 private:
  using Handler = std::function<std::string(const std::string& args)>;
  struct Command {
    std::string name;
    bool takes_args;  // "name <args>" instead of exactly "name"
    Handler handler;
  };

  void RegisterCache();
  void RegisterFiles();
  void RegisterRevision();
  void RegisterNetwork();
  void RegisterProcess();
  void RegisterPrefetchLists();  // talk_prefetch_lists.cc
  void Add(std::string name, bool takes_args, Handler handler);

  FileSystem* fs() { return context_.mount->file_system(); }
  cache::PosixCache* cache() { return context_.mount->cache(); }

  // The objects (whole file or chunks) of the regular file at `path`.
  Result<std::vector<ObjectRequest>> ObjectsOf(const std::string& path);
  std::string Evict(const std::string& path);
  std::string Pin(const std::string& path);
  std::string CacheLimitSet(const std::string& args);
  std::string Cleanup(const std::string& args);
  std::string Remount(bool sync);
  std::string MaxTtlSet(const std::string& args);
  std::string HostSet(const std::string& args);
  std::string ProxySet(const std::string& args);
  std::string TimeoutSet(const std::string& args);
  std::string InternalAffairs();
  std::string MetricsPrometheus();  // talk_metrics.h

  TalkContext context_;
  std::vector<Command> commands_;  // longest names first
};

}  // namespace cvmfs::client

#endif  // CLIENT_TALK_TALK_COMMANDS_H_
