#include "publisher/gateway_publish.h"

#include <ctime>
#include <memory>
#include <optional>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_pack.h"
#include "publisher/catalog_tree.h"
#include "publisher/diff.h"
#include "publisher/lease_path.h"
#include "publisher/staging_object_store.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

// The first changed path between the two roots outside `lease`, if any.
Result<std::optional<std::string>> FirstChangeOutside(
    cvmfs::ObjectStore* store, const cvmfs::Digest& from,
    const cvmfs::Digest& to, const std::string& lease,
    const std::string& temp_dir) {
  std::optional<std::string> outside;
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(temp_dir));
  CVMFS_RETURN_IF_ERROR(
      DiffRevisions(store, from, to, temp_dir, {}, [&](const PathChange& c) {
        if (!outside && ReachesOutside(c.path, lease)) outside = c.path;
      }).status());
  return outside;
}

// Sends every staged object in packs of at most kObjectPackDefaultLimit.
Status SendStaged(StagingObjectStore* staged, GatewayClient* client,
                  const std::string& token, cvmfs::HashAlgorithm algorithm,
                  GatewayPublishStats* stats) {
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> names, staged->ListObjects());
  auto pack = std::make_unique<cvmfs::ObjectPackBuilder>();
  auto flush = [&]() -> Status {
    if (pack->objects() == 0) return Status::Ok();
    CVMFS_RETURN_IF_ERROR(client->SubmitPack(token, *pack, algorithm));
    ++stats->packs;
    stats->objects_sent += pack->objects();
    stats->bytes_sent += pack->payload_size();
    pack = std::make_unique<cvmfs::ObjectPackBuilder>();
    return Status::Ok();
  };
  for (const std::string& name : names) {
    CVMFS_ASSIGN_OR_RETURN(cvmfs::ObjectName id, cvmfs::ParseObjectPath(name));
    CVMFS_ASSIGN_OR_RETURN(std::string bytes, staged->Get(name));
    if (pack->AddCas(id, bytes)) continue;
    CVMFS_RETURN_IF_ERROR(flush());
    if (!pack->AddCas(id, bytes))
      return Status::InvalidArgument(name + " does not fit in an object pack");
  }
  return flush();
}

}  // namespace

Result<GatewayPublishStats> PublishThroughGateway(
    Repository* repo, GatewaySession* session,
    const GatewayPublishRequest& request, const Repository::BuildFn& build,
    const PublishOptions& options) {
  const ServerConfig& config = repo->config();
  CVMFS_ASSIGN_OR_RETURN(std::string work, repo->MakeTempDir());
  cvmfs::ScopedRemoveTree cleanup(work);
  StagingObjectStore staged(repo->store(), work + "/staging");
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(work + "/staging"));
  CVMFS_RETURN_IF_ERROR(staged.CreateLayout());

  const CatalogTreeOptions tree_options{config.hash_algorithm, config.ttl,
                                        work + "/catalogs"};
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(tree_options.temp_dir));
  CVMFS_ASSIGN_OR_RETURN(
      auto tree, CatalogTree::Open(&staged, request.base_root, tree_options));
  // No content index: an object it remembers may never have reached the
  // gateway (a publish refused after storing it).
  IngestOptions ingest = repo->PipelineOptions();
  ingest.progress = options.progress;
  IngestPipeline pipeline(&staged, ingest);
  Status built = build(tree.get(), &pipeline);
  pipeline.Drain();
  CVMFS_RETURN_IF_ERROR(built);
  CVMFS_ASSIGN_OR_RETURN(
      CommitResult commit,
      tree->Commit(request.base_revision + 1, ::time(nullptr)));
  tree.reset();

  GatewayPublishStats stats;
  stats.built_root = commit.root_hash;
  stats.files = pipeline.stats().files;
  stats.bytes_in = pipeline.stats().bytes_in;
  CVMFS_ASSIGN_OR_RETURN(
      std::optional<std::string> outside,
      FirstChangeOutside(&staged, request.base_root, commit.root_hash,
                         request.lease_path, work + "/diff"));
  if (outside)
    return Status::Permission(
        *outside + " is outside the leased path " +
        session->LeaseName(request.lease_path) +
        ": nothing was sent to the gateway; undo that change, or abort and "
        "lease a path that holds it");

  // The gateway forgot the lease: it expired (or was dropped by an admin).
  auto lease_gone = [&](const Status& s) {
    return Status::NotFound(
        "the lease on " + session->LeaseName(request.lease_path) +
        " is no longer valid (" + s.message() +
        "; it expired before the publish ended): nothing was published. "
        "Abort the transaction (cvmfs_server abort -f " +
        config.fqrn + ") and open a new one");
  };
  Status sent = SendStaged(&staged, session->client(), request.token,
                           config.hash_algorithm, &stats);
  if (sent.IsNotFound()) return lease_gone(sent);
  CVMFS_RETURN_IF_ERROR(sent);
  auto revision = session->client()->Commit(request.token, request.base_root,
                                            commit.root_hash, options.tag_name,
                                            options.tag_description);
  if (revision.status().IsNotFound()) return lease_gone(revision.status());
  if (!revision.ok()) return revision.status();
  stats.revision = *revision;
  return stats;
}

Result<PublishStats> ToPublishStats(Repository* repo,
                                    const GatewayPublishStats& sent) {
  CVMFS_ASSIGN_OR_RETURN(auto current, repo->CurrentManifest());
  PublishStats stats;
  stats.revision = sent.revision;
  stats.root_hash = current.manifest.root_catalog;
  stats.files = sent.files;
  stats.bytes_in = sent.bytes_in;
  stats.objects_stored = sent.objects_sent;
  stats.bytes_stored = sent.bytes_sent;
  return stats;
}

Status CheckLeaseParent(Repository* repo, const cvmfs::Digest& root,
                        const std::string& lease_path) {
  if (lease_path == "/") return Status::Ok();
  const std::string parent = lease_path.substr(0, lease_path.rfind('/'));
  CVMFS_ASSIGN_OR_RETURN(std::string temp, repo->MakeTempDir());
  cvmfs::ScopedRemoveTree remove_temp(temp);
  const CatalogTreeOptions options{repo->config().hash_algorithm,
                                   repo->config().ttl, temp};
  CVMFS_ASSIGN_OR_RETURN(auto tree,
                         CatalogTree::Open(repo->store(), root, options));
  CVMFS_ASSIGN_OR_RETURN(auto entry, tree->Lookup(parent));
  if (!entry)
    return Status::NotFound("cannot lease " + lease_path + ": its parent " +
                            (parent.empty() ? "/" : parent) +
                            " does not exist");
  if (!entry->IsDirectory())
    return Status::InvalidArgument("cannot lease " + lease_path +
                                   ": its parent " + parent +
                                   " is not a directory");
  return Status::Ok();
}

Result<PublishStats> PublishUnderLease(Repository* repo,
                                       const SpoolLayout& layout,
                                       const std::string& lease_path,
                                       const Repository::BuildFn& build,
                                       const PublishOptions& options) {
  const ServerConfig& config = repo->config();
  CVMFS_RETURN_IF_ERROR(repo->Lock());
  if (cvmfs::PathExists(layout.in_transaction))
    return Status::Busy("a transaction is open on " + config.fqrn + " (" +
                        layout.in_transaction +
                        "); publish or abort it first (cvmfs_server "
                        "publish|abort " +
                        config.fqrn + ")");
  CVMFS_ASSIGN_OR_RETURN(auto current, repo->CurrentManifest());
  const cvmfs::Manifest& base = current.manifest;
  CVMFS_RETURN_IF_ERROR(CheckLeaseParent(repo, base.root_catalog, lease_path));
  CVMFS_ASSIGN_OR_RETURN(GatewaySession session,
                         GatewaySession::For(config, layout));
  // With no transaction open, a stored token is one a killed command left.
  std::string note;
  (void)session.Drop(&note);
  CVMFS_RETURN_IF_ERROR(session.Acquire(lease_path));
  CVMFS_ASSIGN_OR_RETURN(std::string token, session.Token());
  GatewayPublishRequest request{base.root_catalog, base.revision, lease_path,
                                token};
  auto sent = PublishThroughGateway(repo, &session, request, build, options);
  if (!sent.ok()) {
    (void)session.Drop(&note);
    return sent.status();
  }
  CVMFS_RETURN_IF_ERROR(session.Forget());  // the commit ended the lease
  return ToPublishStats(repo, *sent);
}

}  // namespace publisher
