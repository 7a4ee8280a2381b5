// RepositoryMount: everything one mounted repository owns, built in the
// order CVMFS boots (doc/client.md, "Mounting"):
//
//   cache directory (+ quota) ─► HTTP fetcher ─► master keys ─► whitelist,
//   certificate, manifest (verified) ─► breadcrumb check ─► [tag lookup in
//   the history database] ─► root catalog (pinned) ─► FileSystem
//
// Offline start: when no server answers and the cache remembers a revision
// of this repository (the breadcrumb), that revision is mounted from the
// cache alone; without one the mount fails.
//
// Ownership: the RepositoryMount owns the cache, the fetchers and the file
// system; the FUSE adapter borrows file_system() for the session's life.
#ifndef CLIENT_REPOSITORY_MOUNT_H_
#define CLIENT_REPOSITORY_MOUNT_H_

#include <atomic>
#include <condition_variable>
#include <ctime>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cache/posix_cache.h"
#include "client/event_log.h"
#include "client/external_settings.h"
#include "client/file_system.h"
#include "client/object_fetcher.h"
#include "client/prefetch/open_recorder.h"
#include "client/prefetch/prefetch_list_loader.h"
#include "client/trust_chain.h"
#include "cvmfs/catalog/history_db.h"
#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

// The Geo-API (client/geo_probe.h).
struct GeoConfig {
  bool enabled = false;        // CVMFS_USE_GEOAPI: order the hosts at mount
  std::string proxy_template;  // CVMFS_PROXY_TEMPLATE
  // CVMFS_MAX_SERVERS: after the ordering, only the first this many hosts
  // are kept (as CVMFS, the kept list counts as set by hand); 0 = all.
  int max_servers = 0;
};

struct MountConfig {
  std::string fqrn;
  HttpFetcherOptions http;
  GeoConfig geo;
  // The external data servers (CVMFS_EXTERNAL_URL); unset: files flagged
  // external fail with EIO naming CVMFS_EXTERNAL_URL.
  std::optional<HttpFetcherOptions> external_http;
  cache::CacheOptions cache;
  std::vector<std::string> public_key_files;
  std::string tag;                  // CVMFS_REPOSITORY_TAG
  std::optional<int64_t> date;      // CVMFS_REPOSITORY_DATE (UTC seconds)
  std::optional<Digest> root_hash;  // CVMFS_ROOT_HASH
  FileSystemOptions fs;
  bool auto_update = true;     // CVMFS_AUTO_UPDATE
  int64_t max_ttl_s = 0;       // CVMFS_MAX_TTL (in seconds here), 0 = none
  std::string blacklist_file;  // /etc/cvmfs/blacklist (may be missing)
  // The configuration repository's etc/cvmfs/blacklist, read with it
  // (empty: none; may be missing).
  std::string config_repository_blacklist_file;
  // Called from the revision check when the blacklist ("<FQRN N") refuses
  // the mounted revision itself: CVMFS aborts the mount then, and so should
  // the program (cvmfs2 ends its FUSE session, which unmounts). Unset: the
  // check only fails.
  std::function<void(const Status&)> on_revision_blacklisted;
  // A tag, a date or a root hash names the revision: it never moves.
  bool Pinned() const { return !tag.empty() || date || root_hash; }
  // What an operator should see (the daemon's syslog, daemon_log.h): the
  // revision mounted and each switch, an offline start, failed revision
  // checks, host and proxy failover with the reason, failed downloads (the
  // causes of EIO), a full cache, a blacklisted revision. Called from any
  // thread. Unset: these lines go to Create's `log` like the others.
  EventLog event_log;
  // Where the revision updater reads "now" (when the next check is due),
  // and the object fetcher times downloads (what a miss costs); tests pass
  // a ManualClock. Borrowed, never null. (Certificates and whitelists are
  // checked against the calendar, not this clock.)
  const Clock* clock = SteadyClock();
};

// The external servers' fetcher options: `repository`'s (retries, backoff,
// low-speed limit, user agent), with the servers, proxies and timeouts of
// `external`; nullopt without CVMFS_EXTERNAL_URL.
std::optional<HttpFetcherOptions> ExternalHttpOptions(
    const HttpFetcherOptions& repository, const ExternalDataSettings& external);

// How long to wait before checking again after a failed check (CVMFS's
// short-term TTL): offline clients retry every 3 minutes.
inline constexpr int kRetryAfterFailureSeconds = 180;

class RepositoryMount {
 public:
  // Log lines (one per step, and why an offline start happened) go to `log`.
  // Downloads go through an HttpFetcher built from config.http, or through
  // `fetcher` when one is given (tests).
  static Result<std::unique_ptr<RepositoryMount>> Create(
      MountConfig config, const std::function<void(const std::string&)>& log,
      std::unique_ptr<Fetcher> fetcher = nullptr);
  ~RepositoryMount();

  FileSystem* file_system() { return fs_.get(); }
  HttpFetcher* http() { return http_; }  // null with an injected fetcher
  cache::PosixCache* cache() { return cache_.get(); }
  // Recorded prefetch lists (doc/format-prefetch-list.md): recording the
  // files a workload opens, and the lists of the mounted revision.
  OpenRecorder* open_recorder() { return recorder_.get(); }
  PrefetchListLoader* prefetch_lists() { return prefetch_lists_.get(); }
  bool offline_start() const { return offline_start_; }

  // Orders the hosts of `http` (the mount's own fetcher in cvmfs2) by the
  // Geo-API with this mount's settings and log (CVMFS's ProbeGeo; at mount
  // with CVMFS_USE_GEOAPI, and `cvmfs_talk host probe geo`). A failure
  // keeps the order and is logged.
  Status ProbeGeo(HttpFetcher* http);

  // Fetches the manifest now and switches to a newer revision if there is
  // one (cvmfs_talk remount). With `sync` the call returns after the switch;
  // otherwise the background updater does it. Returns a one-line report
  // ("Catalog up to date", "switched to revision N", or why not).
  Result<std::string> CheckForUpdate(bool sync) EXCLUDES(update_mu_, wake_mu_);

  // A notification announced `manifest`, the bytes of a .cvmfspublished
  // (doc/notifications.md). It is verified like one from a server (the
  // whitelist and certificate are fetched now, the blacklist applies);
  // when it is newer than the mounted revision the updater is woken to
  // switch at once, without waiting for the TTL, and uses the announced
  // manifest if the servers still give an older one. Never waits for the
  // switch. Returns what was done; an error says why the announcement is
  // ignored (not signed by the repository's key, not newer, pinned).
  Result<std::string> FollowAnnouncement(std::string manifest)
      EXCLUDES(wake_mu_);
  struct NotificationCounters {
    uint64_t received = 0;   // announcements handed to FollowAnnouncement
    uint64_t ignored = 0;    // refused: unverifiable, old, pinned
    uint64_t triggered = 0;  // woke the updater for a newer revision
  };
  NotificationCounters notification_counters() const;

  // Starts the background updater: it checks the manifest when the
  // revision's TTL (capped by CVMFS_MAX_TTL) expires, and every
  // kRetryAfterFailureSeconds while checks fail (offline). Stopped by the
  // destructor.
  void StartUpdater();
  void StopUpdater() EXCLUDES(wake_mu_);
  // Seconds until the next automatic check (rounded up; 0 when due).
  int64_t SecondsUntilCheck() const EXCLUDES(wake_mu_);

  // CVMFS_MAX_TTL in seconds (0 = none): the configured value until
  // set_max_ttl_s() (cvmfs_talk max ttl set) changes it. A shorter cap
  // brings the next automatic check forward.
  int64_t max_ttl_s() const;
  void set_max_ttl_s(int64_t seconds) EXCLUDES(wake_mu_);

 private:
  class HttpView;
  RepositoryMount() = default;
  // One check; `update_mu_` must be held.
  Result<std::string> UpdateLocked() REQUIRES(update_mu_) EXCLUDES(wake_mu_);
  void UpdaterLoop() EXCLUDES(update_mu_, wake_mu_);
  int64_t TtlSeconds(const MountedRevision& rev) const;
  // config_.clock's now + `seconds`.
  Clock::TimePoint After(int64_t seconds) const;
  // The verified manifest, trying the next host when one serves a bad one.
  Result<TrustedManifest> FetchManifest(const Blacklist& blacklist);
  Result<MountedRevision> ChooseRevision();
  // The tag CVMFS_REPOSITORY_TAG names, or the one CVMFS_REPOSITORY_DATE
  // resolves to, from the manifest's history database.
  Result<Tag> PinnedTag(const Manifest& manifest);
  // To config_.event_log, or to log_ without one.
  void Event(Severity severity, const std::string& message) const;

  MountConfig config_;
  std::unique_ptr<cache::PosixCache> cache_;
  std::unique_ptr<Fetcher> fetcher_;
  std::unique_ptr<HttpFetcher> external_;  // CVMFS_EXTERNAL_URL, may be null
  HttpFetcher* http_ = nullptr;            // fetcher_ when it is the HTTP one
  std::unique_ptr<HttpView> view_;
  std::unique_ptr<ObjectFetcher> objects_;
  std::atomic<uint64_t> next_inode_{256};
  std::unique_ptr<FileSystem> fs_;
  // Both observe fs_'s opens; the loader feeds fs_'s prefetcher.
  std::unique_ptr<OpenRecorder> recorder_;
  std::unique_ptr<PrefetchListLoader> prefetch_lists_;
  void AttachOpenObservers();
  bool offline_start_ = false;
  std::string pinned_tag_;  // the tag mounted, when one is pinned
  std::function<void(const std::string&)> log_;

  // One revision check at a time (held across UpdateLocked; it guards no
  // data). The outermost client lock: the locks of the file system,
  // catalogs, fetcher and prefetch are taken under it; before wake_mu_.
  cvmfs::Mutex update_mu_ ACQUIRED_BEFORE(wake_mu_);
  // Guards next_check_, stop_, wake_; leaf lock, taken after update_mu_.
  mutable cvmfs::Mutex wake_mu_;
  std::condition_variable wake_cv_;  // woken, stopping, or deadline moved
  Clock::TimePoint next_check_ GUARDED_BY(wake_mu_){};  // config_.clock
  bool stop_ GUARDED_BY(wake_mu_) = false;
  bool wake_ GUARDED_BY(wake_mu_) = false;
  std::thread updater_;
  std::atomic<int64_t> max_ttl_override_s_{-1};  // -1: config_.max_ttl_s
  // The newest verified announcement not yet switched to.
  std::optional<TrustedManifest> announced_ GUARDED_BY(wake_mu_);
  std::atomic<uint64_t> announcements_{0}, announcements_ignored_{0},
      announcements_triggered_{0};
};

}  // namespace cvmfs::client

#endif  // CLIENT_REPOSITORY_MOUNT_H_
