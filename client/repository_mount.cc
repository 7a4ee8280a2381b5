#include "client/repository_mount.h"

#include <algorithm>
#include <chrono>

#include "client/geo_probe.h"
#include "client/trust_chain.h"
#include "cvmfs/catalog/history_db.h"
#include "cvmfs/time_format.h"

namespace cvmfs::client {

// What the magic attributes show about the network.
class RepositoryMount::HttpView : public NetworkView {
 public:
  explicit HttpView(HttpFetcher* http) : http_(http) {}
  std::string host() const override { return http_->CurrentHost(); }
  std::string proxy() const override { return http_->CurrentProxy(); }
  std::string host_list() const override {
    std::string out;
    for (const std::string& h : http_->Hosts())
      out += (out.empty() ? "" : ";") + h;
    return out;
  }
  std::string proxy_list() const override { return ProxyLines(*http_); }
  int timeout() const override { return http_->timeout_s(); }
  int timeout_direct() const override { return http_->timeout_direct_s(); }
  std::string external_host() const override {
    return external_ ? external_->CurrentHost() : std::string();
  }
  std::string external_proxy_list() const override {
    return external_ ? ProxyLines(*external_) : std::string("DIRECT\n");
  }
  int external_timeout_direct() const override {
    return external_ ? external_->timeout_direct_s() : timeout_direct();
  }
  // Set once at mount, before the file system serves requests.
  void set_external(HttpFetcher* external) { external_ = external; }

 private:
  // As CVMFS: every proxy in use (names resolved into addresses), in
  // order, one a line.
  static std::string ProxyLines(const HttpFetcher& http) {
    std::string out;
    for (const auto& group : http.Proxies())
      for (const std::string& proxy : group) out += proxy + "\n";
    return out;
  }

  HttpFetcher* http_;
  HttpFetcher* external_ = nullptr;  // borrowed, may be null
};

std::optional<HttpFetcherOptions> ExternalHttpOptions(
    const HttpFetcherOptions& repository,
    const ExternalDataSettings& external) {
  if (external.urls.empty()) return std::nullopt;
  HttpFetcherOptions o = repository;
  o.hosts = external.urls;
  o.proxy_groups = external.proxy_groups;
  for (const auto& g : external.fallback_proxy_groups)
    o.proxy_groups.push_back(g);
  o.timeout_s = external.timeout_s;
  o.timeout_direct_s = external.timeout_direct_s;
  return o;
}

RepositoryMount::~RepositoryMount() {
  StopUpdater();
  prefetch_lists_.reset();  // joins its worker, which uses fs_'s prefetcher
  fs_.reset();              // unpins catalogs, closes cache handles
  objects_.reset();
  external_.reset();
  view_.reset();
  fetcher_.reset();
  cache_.reset();
}

Result<std::unique_ptr<RepositoryMount>> RepositoryMount::Create(
    MountConfig config, const std::function<void(const std::string&)>& log,
    std::unique_ptr<Fetcher> fetcher) {
  std::unique_ptr<RepositoryMount> m(new RepositoryMount());
  m->config_ = std::move(config);
  m->log_ = log;
  RepositoryMount* mount = m.get();
  if (!m->config_.http.on_failover) {
    m->config_.http.on_failover = [mount](const std::string& what) {
      mount->Event(Severity::kWarning, what);
    };
  }
  const MountConfig& c = m->config_;

  auto cache = cache::PosixCache::Open(c.cache);
  if (!cache.ok()) return cache.status().Annotate("cache " + c.cache.dir);
  m->cache_ = std::move(cache).value();
  if (fetcher) {
    m->fetcher_ = std::move(fetcher);
  } else {
    CVMFS_ASSIGN_OR_RETURN(auto http, HttpFetcher::Create(c.http));
    m->http_ = http.get();
    m->fetcher_ = std::move(http);
    m->view_ = std::make_unique<HttpView>(m->http_);
    // Before the first download, as CVMFS (a failure is logged, not fatal).
    if (c.geo.enabled) (void)m->ProbeGeo(m->http_);
    std::vector<std::string> hosts = m->http_->Hosts();
    if (c.geo.max_servers > 0 &&
        hosts.size() > static_cast<size_t>(c.geo.max_servers)) {
      hosts.resize(static_cast<size_t>(c.geo.max_servers));
      CVMFS_RETURN_IF_ERROR(m->http_->SetHosts(std::move(hosts)));
    }
  }
  m->objects_ =
      std::make_unique<ObjectFetcher>(m->fetcher_.get(), m->cache_.get());
  if (c.external_http) {
    HttpFetcherOptions external = *c.external_http;
    external.on_failover = c.http.on_failover;
    auto http = HttpFetcher::Create(std::move(external));
    if (!http.ok()) return http.status().Annotate("CVMFS_EXTERNAL_URL");
    m->external_ = std::move(http).value();
    m->objects_->set_external_fetcher(m->external_.get());
    if (m->view_) m->view_->set_external(m->external_.get());
  }
  m->objects_->set_logger(
      [mount](Severity s, const std::string& what) { mount->Event(s, what); });
  m->objects_->set_clock(c.clock);
  if (c.fs.bundles) m->objects_->EnableBundles();
  if (m->http_) {
    // A host answering 404 for an object a verified catalog references has
    // not caught up (a lagging Stratum 1): try the next host, as CVMFS does.
    HttpFetcher* http = m->http_;
    m->objects_->set_missing_object_failover([http, mount](int attempt) {
      if (attempt >= static_cast<int>(http->Hosts().size()) - 1) return false;
      mount->Event(Severity::kWarning, "object missing or corrupted on " +
                                           http->CurrentHost() +
                                           "; switching host");
      http->SwitchHost();
      return true;
    });
  }

  CVMFS_ASSIGN_OR_RETURN(MountedRevision revision, m->ChooseRevision());
  auto catalogs = CatalogSet::Mount(m->objects_.get(), m->cache_.get(),
                                    revision.root_hash, &m->next_inode_);
  if (!catalogs.ok())
    return catalogs.status().Annotate(
        "failed to load the root file catalog of " + c.fqrn);
  m->Event(Severity::kInfo, "mounted revision " +
                                std::to_string(revision.revision) + " of " +
                                c.fqrn + " (root catalog " +
                                revision.root_hash.ToString() + ")");
  FileSystemOptions fs_options = c.fs;
  if (!m->pinned_tag_.empty()) fs_options.tag = m->pinned_tag_;
  m->fs_ = std::make_unique<FileSystem>(
      fs_options, m->objects_.get(), m->cache_.get(),
      std::move(catalogs).value(), std::move(revision), m->view_.get());
  m->fs_->set_inode_counter(&m->next_inode_);
  // fs_ is owned by *m: the source lives as long as the file system.
  m->fs_->set_next_check_source([mount] { return mount->SecondsUntilCheck(); });
  FileSystem* fs = m->fs_.get();
  m->objects_->set_space_reclaimer([fs] { return fs->CloseIdleFiles(); });
  m->AttachOpenObservers();
  const Clock::TimePoint first_check =
      m->After(m->offline_start_ ? kRetryAfterFailureSeconds
                                 : m->TtlSeconds(m->fs_->revision()));
  {
    // No other thread knows m yet; the lock is for the analysis.
    cvmfs::MutexLock lock(&m->wake_mu_);
    m->next_check_ = first_check;
  }
  return m;
}

Status RepositoryMount::ProbeGeo(HttpFetcher* http) {
  GeoProbeOptions options;
  options.proxy_template = config_.geo.proxy_template;
  options.cache_dir = config_.cache.dir;
  return client::ProbeGeo(
      http, options,
      [this](Severity s, const std::string& what) { Event(s, what); });
}

void RepositoryMount::Event(Severity severity,
                            const std::string& message) const {
  if (config_.event_log) {
    config_.event_log(severity, message);
  } else if (log_) {
    log_(message);
  }
}

// Recorded prefetch lists: record opens on request, fire lists on opens.
void RepositoryMount::AttachOpenObservers() {
  recorder_ = std::make_unique<OpenRecorder>(kMaxRecordedPaths);
  prefetch_lists_ = std::make_unique<PrefetchListLoader>(
      objects_.get(), cache_.get(), fs_->prefetcher(), log_);
  prefetch_lists_->Load(fs_->catalogs().get(), fs_->revision().revision);
  OpenRecorder* recorder = recorder_.get();
  PrefetchListLoader* lists = prefetch_lists_.get();
  fs_->set_open_observer([recorder, lists](const std::string& path) {
    recorder->OnOpen(path);
    lists->OnOpen(path);
  });
}

Result<Tag> RepositoryMount::PinnedTag(const Manifest& manifest) {
  const MountConfig& c = config_;
  const std::string wanted =
      !c.tag.empty() ? "tag '" + c.tag + "'"
                     : "the state at " + FormatTime(*c.date, kRfc3339UtcFormat,
                                                    TimeZone::kUtc);
  if (!manifest.history)
    return Status::NotFound("repository has no history database; cannot find " +
                            wanted);
  ObjectRequest request;
  request.digest = *manifest.history;
  request.suffix = ObjectSuffix::kHistory;
  request.description = "history of " + c.fqrn;
  CVMFS_ASSIGN_OR_RETURN(auto handle, objects_->OpenReferenced(request));
  CVMFS_ASSIGN_OR_RETURN(
      auto history,
      HistoryDb::OpenReadOnly("/proc/self/fd/" + std::to_string(handle.fd())));
  if (!c.tag.empty()) {
    CVMFS_ASSIGN_OR_RETURN(auto tag, history->Get(c.tag));
    if (!tag)
      return Status::NotFound("CVMFS_REPOSITORY_TAG: no tag '" + c.tag +
                              "' in " + c.fqrn);
    return *tag;
  }
  // CVMFS_REPOSITORY_DATE (CVMFS_REPOSITORY_TAG wins where both are set).
  CVMFS_ASSIGN_OR_RETURN(auto tag, history->GetByDate(*c.date));
  if (!tag)
    return Status::NotFound(
        "CVMFS_REPOSITORY_DATE: no repository state as early as utc "
        "timestamp " +
        FormatTime(*c.date, kRfc3339UtcFormat, TimeZone::kUtc) + " in " +
        c.fqrn);
  Event(Severity::kInfo,
        "time stamp " + FormatTime(*c.date, kRfc3339UtcFormat, TimeZone::kUtc) +
            " UTC resolved to tag '" + tag->name + "'");
  return *tag;
}

Result<MountedRevision> RepositoryMount::ChooseRevision() {
  const MountConfig& c = config_;
  CVMFS_ASSIGN_OR_RETURN(auto breadcrumb, cache_->LoadBreadcrumb(c.fqrn));
  CVMFS_ASSIGN_OR_RETURN(
      Blacklist blacklist,
      Blacklist::LoadAll(
          {c.blacklist_file, c.config_repository_blacklist_file}));
  auto trusted = FetchManifest(blacklist);

  MountedRevision rev;
  if (!trusted.ok()) {
    // Offline start: no server reachable, or none serving a manifest that
    // verifies (a captive portal everywhere). A blacklisted certificate or
    // revision is never worked around.
    const Status::Code code = trusted.status().code();
    if (code == Status::Code::kPermission ||
        code == Status::Code::kInvalidArgument || !breadcrumb)
      return trusted.status().Annotate("cannot mount " + c.fqrn);
    if (c.Pinned())
      return trusted.status().Annotate(
          "cannot mount " +
          (c.tag.empty() ? std::string("CVMFS_REPOSITORY_DATE's revision")
                         : "tag " + c.tag) +
          " of " + c.fqrn + " offline");
    Event(Severity::kWarning,
          "no server reachable (" + trusted.status().ToString() +
              "); mounting revision " + std::to_string(breadcrumb->revision) +
              " from the cache");
    offline_start_ = true;
    rev.root_hash = breadcrumb->root_hash;
    rev.revision = breadcrumb->revision;
    rev.manifest.root_catalog = breadcrumb->root_hash;
    rev.manifest.revision = breadcrumb->revision;
    rev.manifest.publish_timestamp = breadcrumb->timestamp;
    CVMFS_RETURN_IF_ERROR(blacklist.CheckRevision(c.fqrn, rev.revision)
                              .Annotate("cannot mount " + c.fqrn));
    return rev;
  }
  const Manifest& manifest = trusted->manifest;
  if (breadcrumb && manifest.revision < breadcrumb->revision)
    return Status::Corruption(
        "manifest of " + c.fqrn + " has revision " +
        std::to_string(manifest.revision) + ", older than revision " +
        std::to_string(breadcrumb->revision) +
        " seen before (stale mirror or replay); refusing it");
  rev.manifest = manifest;
  rev.host = trusted->host;
  rev.revision = manifest.revision;
  rev.root_hash = manifest.root_catalog;
  if (!c.tag.empty() || c.date) {
    CVMFS_ASSIGN_OR_RETURN(Tag tag, PinnedTag(manifest));
    rev.root_hash = tag.root_hash;
    rev.revision = tag.revision;
    pinned_tag_ = tag.name;
  } else if (c.root_hash) {
    rev.root_hash = *c.root_hash;
  }
  // The manifest's revision passed; a tag may name an older one.
  CVMFS_RETURN_IF_ERROR(blacklist.CheckRevision(c.fqrn, rev.revision)
                            .Annotate("cannot mount " + c.fqrn));
  if (!breadcrumb || manifest.revision > breadcrumb->revision ||
      manifest.root_catalog != breadcrumb->root_hash) {
    cache::PosixCache::Breadcrumb crumb;
    crumb.root_hash = manifest.root_catalog;
    crumb.timestamp = manifest.publish_timestamp.value_or(0);
    crumb.revision = manifest.revision;
    Status st = cache_->StoreBreadcrumb(c.fqrn, crumb);
    if (!st.ok())
      Event(Severity::kWarning, "cannot store breadcrumb: " + st.ToString());
  }
  return rev;
}

}  // namespace cvmfs::client

namespace cvmfs::client {

Result<TrustedManifest> RepositoryMount::FetchManifest(
    const Blacklist& blacklist) {
  CVMFS_ASSIGN_OR_RETURN(auto keys, LoadPublicKeys(config_.public_key_files));
  size_t hosts_left = http_ ? http_->Hosts().size() - 1 : 0;
  auto next_host = [&](const Status& why) {
    if (hosts_left == 0) return false;
    --hosts_left;
    Event(Severity::kWarning, "manifest from " + http_->CurrentHost() +
                                  " rejected (" + why.ToString() +
                                  "); switching host");
    http_->SwitchHost();
    return true;
  };
  auto trusted = FetchTrustedManifestFailover(
      fetcher_.get(), objects_.get(), config_.fqrn, keys, ::time(nullptr),
      &blacklist, next_host);
  // What a miss will cost, known before the first one (prefetch speculates
  // on a slow link from the start).
  if (trusted.ok()) objects_->NoteRoundTrip(trusted->manifest_fetch);
  return trusted;
}

int64_t RepositoryMount::TtlSeconds(const MountedRevision& rev) const {
  int64_t ttl = static_cast<int64_t>(rev.manifest.ttl);
  if (ttl <= 0) ttl = static_cast<int64_t>(kDefaultCatalogTtl);
  const int64_t max_ttl = max_ttl_s();
  if (max_ttl > 0 && max_ttl < ttl) ttl = max_ttl;
  return ttl;
}

Clock::TimePoint RepositoryMount::After(int64_t seconds) const {
  return config_.clock->Now() + std::chrono::seconds(seconds);
}

int64_t RepositoryMount::max_ttl_s() const {
  const int64_t override_s = max_ttl_override_s_.load();
  return override_s >= 0 ? override_s : config_.max_ttl_s;
}

void RepositoryMount::set_max_ttl_s(int64_t seconds) {
  max_ttl_override_s_ = std::max<int64_t>(0, seconds);
  const Clock::TimePoint next = After(TtlSeconds(fs_->revision()));
  {
    cvmfs::MutexLock lock(&wake_mu_);
    if (next >= next_check_) return;
    next_check_ = next;
  }
  wake_cv_.notify_all();
}

int64_t RepositoryMount::SecondsUntilCheck() const {
  cvmfs::MutexLock lock(&wake_mu_);
  const int64_t left = std::chrono::ceil<std::chrono::seconds>(
                           next_check_ - config_.clock->Now())
                           .count();
  return left > 0 ? left : 0;
}

Result<std::string> RepositoryMount::UpdateLocked() {
  const MountConfig& c = config_;
  MountedRevision current = fs_->revision();
  // As CVMFS: the blacklist is read again and the mounted revision checked
  // first, also when the revision is pinned.
  CVMFS_ASSIGN_OR_RETURN(
      Blacklist blacklist,
      Blacklist::LoadAll(
          {c.blacklist_file, c.config_repository_blacklist_file}));
  Status mounted = blacklist.CheckRevision(c.fqrn, current.revision);
  if (!mounted.ok()) {
    Event(Severity::kError,
          "the mounted " + mounted.message() + "; aborting the mount");
    if (c.on_revision_blacklisted) c.on_revision_blacklisted(mounted);
    return mounted;
  }
  if (c.Pinned())
    return std::string("Catalog up to date (pinned by configuration)");
  CVMFS_ASSIGN_OR_RETURN(TrustedManifest trusted, FetchManifest(blacklist));
  {
    // A notification announced a newer one than the servers give yet.
    // Kept until mounted: a failed switch retries it.
    cvmfs::MutexLock lock(&wake_mu_);
    if (announced_ && announced_->manifest.revision <= current.revision)
      announced_.reset();
    if (announced_ && announced_->manifest.revision > trusted.manifest.revision)
      trusted = *announced_;
  }
  const Manifest& m = trusted.manifest;
  if (m.revision < current.revision ||
      (m.revision == current.revision && m.root_catalog != current.root_hash))
    return Status::Corruption(
        "manifest of " + c.fqrn + " has revision " +
        std::to_string(m.revision) + ", not newer than the mounted " +
        std::to_string(current.revision) + "; refusing it");
  if (m.root_catalog == current.root_hash)
    return std::string("Catalog up to date");
  auto catalogs = CatalogSet::Mount(objects_.get(), cache_.get(),
                                    m.root_catalog, &next_inode_);
  if (!catalogs.ok())
    return catalogs.status().Annotate("loading revision " +
                                      std::to_string(m.revision));
  MountedRevision rev;
  rev.manifest = m;
  rev.root_hash = m.root_catalog;
  rev.revision = m.revision;
  rev.host = trusted.host;
  fs_->SwitchRevision(std::move(catalogs).value(), std::move(rev));
  prefetch_lists_->Load(fs_->catalogs().get(), m.revision);
  cache::PosixCache::Breadcrumb crumb;
  crumb.root_hash = m.root_catalog;
  crumb.timestamp = m.publish_timestamp.value_or(0);
  crumb.revision = m.revision;
  Status st = cache_->StoreBreadcrumb(c.fqrn, crumb);
  if (!st.ok())
    Event(Severity::kWarning, "cannot store breadcrumb: " + st.ToString());
  std::string report = "switched to revision " + std::to_string(m.revision) +
                       " (root catalog " + m.root_catalog.ToString() + ")";
  Event(Severity::kInfo,
        "switched to catalog revision " + std::to_string(m.revision) +
            " from " + std::to_string(current.revision) + " (root catalog " +
            m.root_catalog.ToString() + ")");
  return report;
}

Result<std::string> RepositoryMount::FollowAnnouncement(std::string manifest) {
  ++announcements_;
  auto result = [&]() -> Result<std::string> {
    if (config_.Pinned() || !config_.auto_update)
      return Status::InvalidArgument(
          "the revision is pinned or CVMFS_AUTO_UPDATE=no");
    CVMFS_ASSIGN_OR_RETURN(
        Blacklist blacklist,
        Blacklist::LoadAll({config_.blacklist_file,
                            config_.config_repository_blacklist_file}));
    CVMFS_ASSIGN_OR_RETURN(auto keys, LoadPublicKeys(config_.public_key_files));
    CVMFS_ASSIGN_OR_RETURN(
        TrustedManifest trusted,
        VerifyAnnouncedManifest(std::move(manifest), fetcher_.get(),
                                objects_.get(), config_.fqrn, keys,
                                ::time(nullptr), &blacklist));
    const uint64_t current = fs_->revision().revision;
    const uint64_t announced = trusted.manifest.revision;
    if (announced <= current)
      return Status::InvalidArgument(
          "announced revision " + std::to_string(announced) +
          " is not newer than the mounted " + std::to_string(current));
    {
      cvmfs::MutexLock lock(&wake_mu_);
      if (!announced_ || announced_->manifest.revision < announced)
        announced_ = std::move(trusted);
      wake_ = true;
    }
    wake_cv_.notify_all();
    return "revision " + std::to_string(announced) +
           " announced; switching from " + std::to_string(current);
  }();
  if (result.ok()) {
    ++announcements_triggered_;
    Event(Severity::kInfo, "notification: " + *result);
  } else {
    ++announcements_ignored_;
    Event(Severity::kWarning,
          "notification ignored: " + result.status().message());
  }
  return result;
}

RepositoryMount::NotificationCounters RepositoryMount::notification_counters()
    const {
  NotificationCounters c;
  c.received = announcements_.load();
  c.ignored = announcements_ignored_.load();
  c.triggered = announcements_triggered_.load();
  return c;
}

Result<std::string> RepositoryMount::CheckForUpdate(bool sync) {
  if (!sync) {
    {
      cvmfs::MutexLock lock(&wake_mu_);
      wake_ = true;
    }
    wake_cv_.notify_all();
    return std::string("Catalog update scheduled");
  }
  cvmfs::MutexLock update(&update_mu_);
  auto result = UpdateLocked();
  cvmfs::MutexLock lock(&wake_mu_);
  next_check_ = After(result.ok() ? TtlSeconds(fs_->revision())
                                  : kRetryAfterFailureSeconds);
  wake_cv_.notify_all();  // the updater may be waiting for a later deadline
  return result;
}

void RepositoryMount::StartUpdater() {
  if (updater_.joinable() || !config_.auto_update) return;
  updater_ = std::thread([this] { UpdaterLoop(); });
}

void RepositoryMount::StopUpdater() {
  {
    cvmfs::MutexLock lock(&wake_mu_);
    stop_ = true;
  }
  wake_cv_.notify_all();
  if (updater_.joinable()) updater_.join();
}

void RepositoryMount::UpdaterLoop() {
  for (;;) {
    {
      cvmfs::MutexLock lock(&wake_mu_);
      // next_check_ may move (cvmfs_talk max ttl set): wait for the
      // deadline as it is now, again after every notification.
      while (!stop_ && !wake_) {
        const Clock::Duration left = next_check_ - config_.clock->Now();
        if (left <= Clock::Duration::zero()) break;
        lock.WaitFor(&wake_cv_, left);
      }
      if (stop_) return;
      wake_ = false;
    }
    auto result = CheckForUpdate(/*sync=*/true);
    if (!result.ok())
      Event(Severity::kWarning, "revision check failed (retrying in " +
                                    std::to_string(kRetryAfterFailureSeconds) +
                                    " s): " + result.status().ToString());
  }
}

}  // namespace cvmfs::client
