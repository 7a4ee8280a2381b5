#include "cvmfs/client/repository_mount.h"

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/client/trust_chain.h"

namespace cvmfs::client {

namespace {
std::string JoinGroups(const std::vector<std::vector<std::string>>& groups) {
  std::string out;
  for (size_t g = 0; g < groups.size(); ++g) {
    if (g) out += ";";
    for (size_t m = 0; m < groups[g].size(); ++m) out += (m ? "|" : "") + groups[g][m];
  }
  return out.empty() ? "DIRECT" : out;
}
}  // namespace

// What the magic attributes show about the network.
class RepositoryMount::HttpView : public NetworkView {
 public:
  HttpView(HttpFetcher* http, const HttpFetcherOptions& options)
      : http_(http), options_(options) {}
  std::string host() const override { return http_->CurrentHost(); }
  std::string proxy() const override { return http_->CurrentProxy(); }
  std::string host_list() const override {
    std::string out;
    for (const std::string& h : options_.hosts) out += (out.empty() ? "" : ";") + h;
    return out;
  }
  std::string proxy_list() const override { return JoinGroups(options_.proxy_groups); }
  int timeout() const override { return options_.timeout_s; }
  int timeout_direct() const override { return options_.timeout_direct_s; }

 private:
  HttpFetcher* http_;
  const HttpFetcherOptions& options_;
};

RepositoryMount::~RepositoryMount() {
  fs_.reset();  // unpins catalogs, closes cache handles
  objects_.reset();
  view_.reset();
  fetcher_.reset();
  cache_.reset();
}

Result<std::unique_ptr<RepositoryMount>> RepositoryMount::Create(
    MountConfig config, const std::function<void(const std::string&)>& log,
    std::unique_ptr<Fetcher> fetcher) {
  std::unique_ptr<RepositoryMount> m(new RepositoryMount());
  m->config_ = std::move(config);
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
    m->view_ = std::make_unique<HttpView>(m->http_, m->config_.http);
  }
  m->objects_ = std::make_unique<ObjectFetcher>(m->fetcher_.get(), m->cache_.get());
  m->objects_->set_logger(log);

  CVMFS_ASSIGN_OR_RETURN(MountedRevision revision, m->ChooseRevision(log));
  auto catalogs = CatalogSet::Mount(m->objects_.get(), m->cache_.get(), revision.root_hash,
                                    &m->next_inode_);
  if (!catalogs.ok())
    return catalogs.status().Annotate("failed to load the root file catalog of " + c.fqrn);
  log("mounted revision " + std::to_string(revision.revision) + " of " + c.fqrn +
      " (root catalog " + revision.root_hash.ToString() + ")");
  m->fs_ = std::make_unique<FileSystem>(c.fs, m->objects_.get(), m->cache_.get(),
                                        std::move(catalogs).value(), std::move(revision),
                                        m->view_.get());
  m->fs_->set_inode_counter(&m->next_inode_);
  return m;
}

Result<Tag> RepositoryMount::TagRoot(const Manifest& manifest) {
  if (!manifest.history)
    return Status::NotFound("repository has no history database; cannot find tag '" +
                            config_.tag + "'");
  ObjectRequest request;
  request.digest = *manifest.history;
  request.suffix = ObjectSuffix::kHistory;
  request.description = "history of " + config_.fqrn;
  CVMFS_ASSIGN_OR_RETURN(auto handle, objects_->OpenReferenced(request));
  CVMFS_ASSIGN_OR_RETURN(auto history,
                         HistoryDb::OpenReadOnly("/proc/self/fd/" + std::to_string(handle.fd())));
  CVMFS_ASSIGN_OR_RETURN(auto tag, history->Get(config_.tag));
  if (!tag)
    return Status::NotFound("CVMFS_REPOSITORY_TAG: no tag '" + config_.tag + "' in " + config_.fqrn);
  return *tag;
}

Result<MountedRevision> RepositoryMount::ChooseRevision(
    const std::function<void(const std::string&)>& log) {
  const MountConfig& c = config_;
  CVMFS_ASSIGN_OR_RETURN(auto breadcrumb, cache_->LoadBreadcrumb(c.fqrn));
  CVMFS_ASSIGN_OR_RETURN(auto keys, LoadPublicKeys(c.public_key_files));
  auto trusted = FetchTrustedManifest(fetcher_.get(), objects_.get(), c.fqrn, keys, ::time(nullptr));

  MountedRevision rev;
  if (!trusted.ok()) {
    if (trusted.status().code() != Status::Code::kUnavailable || !breadcrumb)
      return trusted.status().Annotate("cannot mount " + c.fqrn);
    if (!c.tag.empty())
      return trusted.status().Annotate("cannot mount tag " + c.tag + " of " + c.fqrn +
                                       " offline");
    log("no server reachable (" + trusted.status().ToString() +
        "); mounting revision " + std::to_string(breadcrumb->revision) + " from the cache");
    offline_start_ = true;
    rev.root_hash = breadcrumb->root_hash;
    rev.revision = breadcrumb->revision;
    rev.manifest.root_catalog = breadcrumb->root_hash;
    rev.manifest.revision = breadcrumb->revision;
    rev.manifest.publish_timestamp = breadcrumb->timestamp;
    return rev;
  }
  const Manifest& manifest = trusted->manifest;
  if (breadcrumb && manifest.revision < breadcrumb->revision)
    return Status::Corruption("manifest of " + c.fqrn + " has revision " +
                              std::to_string(manifest.revision) + ", older than revision " +
                              std::to_string(breadcrumb->revision) +
                              " seen before (stale mirror or replay); refusing it");
  rev.manifest = manifest;
  rev.host = trusted->host;
  rev.revision = manifest.revision;
  rev.root_hash = manifest.root_catalog;
  if (!c.tag.empty()) {
    CVMFS_ASSIGN_OR_RETURN(Tag tag, TagRoot(manifest));
    rev.root_hash = tag.root_hash;
    rev.revision = tag.revision;
  } else if (c.root_hash) {
    rev.root_hash = *c.root_hash;
  }
  if (!breadcrumb || manifest.revision > breadcrumb->revision ||
      manifest.root_catalog != breadcrumb->root_hash) {
    cache::PosixCache::Breadcrumb crumb;
    crumb.root_hash = manifest.root_catalog;
    crumb.timestamp = manifest.publish_timestamp.value_or(0);
    crumb.revision = manifest.revision;
    Status st = cache_->StoreBreadcrumb(c.fqrn, crumb);
    if (!st.ok()) log("warning: cannot store breadcrumb: " + st.ToString());
  }
  return rev;
}

}  // namespace cvmfs::client
