#include "publisher/repository.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <chrono>
#include <ctime>
#include <set>

#include "cvmfs/catalog/reflog_db.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/time_format.h"
#include "publisher/auto_tags.h"
#include "publisher/bundle_writer.h"
#include "publisher/object_store_factory.h"
#include "publisher/s3_config.h"
#include "publisher/spool_layout.h"
#include "publisher/stale_temporaries.h"
#include "publisher/status_json.h"
#include "publisher/virtual_dir.h"

namespace publisher {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;

KeyFiles KeyFiles::In(const std::string& keys_dir, const std::string& fqrn) {
  std::string base = keys_dir + "/" + fqrn;
  return KeyFiles{base + ".masterkey", base + ".pub", base + ".key",
                  base + ".crt"};
}

Status ValidateFqrn(const std::string& fqrn) {
  if (fqrn.empty() || fqrn.size() > 60)
    return Status::InvalidArgument("repository name '" + fqrn +
                                   "' must have 1 to 60 characters");
  if (!std::isalnum(static_cast<unsigned char>(fqrn[0])))
    return Status::InvalidArgument("repository name '" + fqrn +
                                   "' must start with a letter or digit");
  for (char c : fqrn) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' &&
        c != '.')
      return Status::InvalidArgument(
          "repository name '" + fqrn +
          "' may only contain letters, digits, '-', '_' and '.'");
  }
  if (fqrn.find('.') == std::string::npos)
    return Status::InvalidArgument(
        "repository name '" + fqrn +
        "' must be fully qualified (e.g. software.example.org)");
  return Status::Ok();
}

Repository::Repository(const cvmfs::SystemPaths& paths, ServerConfig config,
                       std::unique_ptr<cvmfs::ObjectStore> store)
    : paths_(paths), config_(std::move(config)), store_(std::move(store)) {}

Repository::~Repository() {
  if (!temp_dir_.empty()) (void)cvmfs::RemoveTree(temp_dir_);
  if (lock_fd_ >= 0) ::close(lock_fd_);
}

Result<std::unique_ptr<Repository>> Repository::Open(
    const cvmfs::SystemPaths& paths, const std::string& fqrn) {
  CVMFS_RETURN_IF_ERROR(ValidateFqrn(fqrn));
  CVMFS_ASSIGN_OR_RETURN(ServerConfig config, ServerConfig::Load(paths, fqrn));
  CVMFS_ASSIGN_OR_RETURN(std::unique_ptr<cvmfs::ObjectStore> store,
                         OpenObjectStore(config));
  std::unique_ptr<Repository> repo(
      new Repository(paths, std::move(config), std::move(store)));
  CVMFS_RETURN_IF_ERROR(repo->LoadKeys());
  return repo;
}

Status Repository::LoadKeys() {
  KeyFiles keys = KeyFiles::In(config_.keys_dir, config_.fqrn);
  // A publisher machine of a gateway has the certificate, not the key: the
  // gateway signs.
  auto key_pem = cvmfs::ReadFile(keys.repo_key);
  if (!key_pem.ok() && !config_.on_gateway())
    return key_pem.status().Annotate("repository key");
  if (key_pem.ok()) {
    CVMFS_ASSIGN_OR_RETURN(auto key, cvmfs::PrivateKey::FromPem(*key_pem));
    repo_key_.emplace(std::move(key));
  }
  auto crt_pem = cvmfs::ReadFile(keys.repo_crt);
  if (!crt_pem.ok()) return crt_pem.status().Annotate("repository certificate");
  CVMFS_ASSIGN_OR_RETURN(auto crt, cvmfs::Certificate::FromPem(*crt_pem));
  certificate_.emplace(std::move(crt));
  return Status::Ok();
}

Result<std::string> Repository::MakeTempDir() {
  std::string base = config_.spool_dir + "/tmp";
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(base, 0700));
  std::string tmpl = TempDirTemplate(base, "work");
  if (!::mkdtemp(tmpl.data()))
    return Status::FromErrno(errno,
                             "creating a temporary directory in " + base);
  return tmpl;
}

Status Repository::Lock() {
  if (lock_fd_ >= 0) return Status::Ok();
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config_.spool_dir));
  const std::string path =
      SpoolLayout::For(paths_, config_.fqrn, config_.spool_dir).lock;
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0) return Status::FromErrno(errno, "open " + path);
  if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd);
    auto holder = cvmfs::ReadFile(path);
    std::string who =
        holder.ok() && !holder->empty() ? "pid " + *holder : "another process";
    while (!who.empty() && who.back() == '\n') who.pop_back();
    return Status::Busy("another publish, transaction or tag operation on " +
                        config_.fqrn + " is running (" + who + " holds " +
                        path + ")");
  }
  // For the message above; the flock itself is the lock, so a holder that
  // died (even by kill -9) never blocks anyone.
  std::string pid = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd, 0) == 0) (void)::pwrite(fd, pid.data(), pid.size(), 0);
  lock_fd_ = fd;
  return RemoveStaleTemporaries();
}

Status Repository::RefuseDuringTransaction(const PublishOptions& options) {
  if (options.from_transaction) return Status::Ok();
  const std::string state =
      SpoolLayout::For(paths_, config_.fqrn, config_.spool_dir).in_transaction;
  if (!cvmfs::PathExists(state)) return Status::Ok();
  return Status::Busy(
      "a transaction is open on " + config_.fqrn + " (" + state +
      "); publish or abort it first (cvmfs_server publish|abort " +
      config_.fqrn + ")");
}

// Under the lock no other publish runs; what a killed one left is garbage.
Status Repository::RemoveStaleTemporaries() {
  std::vector<std::string> dirs = {config_.spool_dir + "/tmp"};
  // S3 has no temporaries: a PUT is atomic in the bucket.
  if (!config_.on_s3() && !config_.on_gateway())
    dirs.push_back(config_.storage_dir + "/data/txn");
  for (const std::string& dir : dirs) {
    CVMFS_ASSIGN_OR_RETURN(size_t n, publisher::RemoveStaleTemporaries(dir));
    stale_temporaries_removed_ += n;
  }
  return Status::Ok();
}

Result<cvmfs::SignedManifest> Repository::CurrentManifest() {
  auto text = store_->Get(std::string(cvmfs::kManifestName));
  if (!text.ok()) return text.status().Annotate("manifest of " + config_.fqrn);
  auto manifest = cvmfs::Manifest::Parse(*text);
  if (!manifest.ok())
    return manifest.status().Annotate("manifest of " + config_.fqrn);
  CVMFS_RETURN_IF_ERROR(cvmfs::VerifyManifest(*manifest, *certificate_)
                            .Annotate("manifest of " + config_.fqrn));
  return manifest;
}

Result<cvmfs::SignedWhitelist> Repository::CurrentWhitelist() {
  CVMFS_ASSIGN_OR_RETURN(std::string text,
                         store_->Get(std::string(cvmfs::kWhitelistName)));
  return cvmfs::Whitelist::Parse(text);
}

Result<Digest> Repository::StoreCompressed(const std::string& data,
                                           cvmfs::ObjectSuffix suffix) {
  return cvmfs::StoreObject(store_.get(), data, suffix, config_.hash_algorithm);
}

Result<std::unique_ptr<cvmfs::HistoryDb>> Repository::OpenHistory(
    bool writable) {
  if (temp_dir_.empty()) {
    CVMFS_ASSIGN_OR_RETURN(temp_dir_, MakeTempDir());
  }
  CVMFS_ASSIGN_OR_RETURN(auto manifest, CurrentManifest());
  std::string file = temp_dir_ + "/history." + std::to_string(::time(nullptr)) +
                     "." + std::to_string(::getpid()) + ".db";
  (void)::unlink(file.c_str());
  history_file_ = file;
  if (!manifest.manifest.history)
    return cvmfs::HistoryDb::Create(file, config_.fqrn);
  CVMFS_ASSIGN_OR_RETURN(
      std::string raw,
      cvmfs::ReadVerifiedObject(store_.get(), *manifest.manifest.history,
                                cvmfs::ObjectSuffix::kHistory));
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(file, raw, 0600));
  if (writable) return cvmfs::HistoryDb::OpenForWriting(file);
  return cvmfs::HistoryDb::OpenReadOnly(file);
}

Status Repository::WriteManifest(cvmfs::Manifest manifest,
                                 const Digest* history,
                                 const std::vector<Digest>& also_catalogs) {
  // Certificate and metainfo are stored once; make sure they exist.
  CVMFS_ASSIGN_OR_RETURN(Digest cert,
                         StoreCompressed(certificate_->ToPem(),
                                         cvmfs::ObjectSuffix::kCertificate));
  manifest.certificate = cert;
  if (history) manifest.history = *history;
  manifest.fqrn = config_.fqrn;
  manifest.garbage_collectable = config_.garbage_collection;
  manifest.ttl = config_.ttl;
  manifest.publish_timestamp = static_cast<uint64_t>(::time(nullptr));

  // Reflog: every root catalog, certificate, history and metainfo published.
  if (temp_dir_.empty()) {
    CVMFS_ASSIGN_OR_RETURN(temp_dir_, MakeTempDir());
  }
  std::string reflog_file = temp_dir_ + "/reflog.db";
  (void)::unlink(reflog_file.c_str());
  std::unique_ptr<cvmfs::ReflogDb> reflog;
  auto existing = store_->Get(std::string(cvmfs::kReflogName));
  if (existing.ok()) {
    CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(reflog_file, *existing, 0600));
    CVMFS_ASSIGN_OR_RETURN(reflog,
                           cvmfs::ReflogDb::OpenForWriting(reflog_file));
  } else {
    CVMFS_ASSIGN_OR_RETURN(reflog,
                           cvmfs::ReflogDb::Create(reflog_file, config_.fqrn));
  }
  for (const Digest& c : also_catalogs)
    CVMFS_RETURN_IF_ERROR(reflog->AddCatalog(
        c, static_cast<int64_t>(*manifest.publish_timestamp)));
  CVMFS_RETURN_IF_ERROR(
      reflog->AddCatalog(manifest.root_catalog,
                         static_cast<int64_t>(*manifest.publish_timestamp)));
  CVMFS_RETURN_IF_ERROR(reflog->AddCertificate(
      cert, static_cast<int64_t>(*manifest.publish_timestamp)));
  if (manifest.history)
    CVMFS_RETURN_IF_ERROR(reflog->AddHistory(
        *manifest.history, static_cast<int64_t>(*manifest.publish_timestamp)));
  if (manifest.metainfo)
    CVMFS_RETURN_IF_ERROR(reflog->AddMetainfo(
        *manifest.metainfo, static_cast<int64_t>(*manifest.publish_timestamp)));
  CVMFS_RETURN_IF_ERROR(reflog->Close());
  reflog.reset();
  CVMFS_ASSIGN_OR_RETURN(std::string reflog_bytes,
                         cvmfs::ReadFile(reflog_file));
  manifest.reflog = cvmfs::HashString(config_.hash_algorithm, reflog_bytes);
  CVMFS_RETURN_IF_ERROR(
      store_->Put(std::string(cvmfs::kReflogName), reflog_bytes)
          .Annotate("storing the reflog"));

  if (!repo_key_)
    return Status::NotSupported(
        config_.fqrn + " is published through the gateway " +
        config_.gateway_url +
        ": this machine has no repository key and changes the repository "
        "only by cvmfs_server transaction and publish");
  CVMFS_ASSIGN_OR_RETURN(std::string signed_manifest,
                         cvmfs::SignManifest(manifest, *repo_key_));
  // The commit point: after this rename clients see the new revision.
  return store_->Put(std::string(cvmfs::kManifestName), signed_manifest)
      .Annotate("storing the manifest");
}

Result<CommitResult> Repository::CommitVirtualDir(
    const CommitResult& built, const std::vector<cvmfs::Tag>& tags,
    uint64_t revision) {
  CVMFS_ASSIGN_OR_RETURN(std::string work, MakeTempDir());
  cvmfs::ScopedRemoveTree cleanup(work);
  const CatalogTreeOptions tree_options{config_.hash_algorithm, config_.ttl,
                                        work};
  CVMFS_ASSIGN_OR_RETURN(
      auto tree,
      CatalogTree::Open(store_.get(), built.root_hash, tree_options));
  VirtualDirOptions options;
  options.hash_algorithm = config_.hash_algorithm;
  options.now = ::time(nullptr);
  CVMFS_RETURN_IF_ERROR(UpdateVirtualDir(tree.get(), tags, options)
                            .Annotate("updating /.cvmfs/snapshots"));
  CVMFS_ASSIGN_OR_RETURN(CommitResult commit,
                         tree->Commit(revision, options.now));
  for (const std::string& c : built.committed_catalogs)
    commit.committed_catalogs.push_back(c);
  return commit;
}

Result<PublishStats> Repository::CommitRevision(CatalogTree* tree,
                                                uint64_t revision,
                                                const PublishOptions& options) {
  const int64_t now = ::time(nullptr);
  CVMFS_ASSIGN_OR_RETURN(auto current, CurrentManifest());
  if (!config_.virtual_dir) CVMFS_RETURN_IF_ERROR(RemoveVirtualDir(tree));
  CVMFS_ASSIGN_OR_RETURN(CommitResult commit, tree->Commit(revision, now));

  // History: trunk, trunk-previous and the new tag.
  CVMFS_ASSIGN_OR_RETURN(auto history, OpenHistory(true));
  CVMFS_ASSIGN_OR_RETURN(auto old_trunk, history->Get("trunk"));
  if (old_trunk) {
    cvmfs::Tag prev = *old_trunk;
    prev.name = "trunk-previous";
    prev.description = "default undo target";
    CVMFS_RETURN_IF_ERROR(history->Insert(prev));
  }
  cvmfs::Tag trunk;
  trunk.name = "trunk";
  trunk.root_hash = commit.root_hash;
  trunk.revision = revision;
  trunk.timestamp = now;
  trunk.description = "current HEAD";
  trunk.size = commit.root_size;
  CVMFS_RETURN_IF_ERROR(history->Insert(trunk));
  std::string new_tag;
  if (!options.tag_name.empty() || config_.auto_tag) {
    cvmfs::Tag tag = trunk;
    if (options.tag_name.empty()) {
      // Unique: generic_1-<time>, ... when another publish had this second.
      Status lookup;
      tag.name = AutoTagName(now, [&](const std::string& name) {
        auto existing = history->Get(name);
        if (!existing.ok()) lookup = existing.status();
        return !existing.ok() || existing->has_value();
      });
      CVMFS_RETURN_IF_ERROR(lookup);
    } else {
      CVMFS_ASSIGN_OR_RETURN(auto taken, history->Get(options.tag_name));
      if (taken)
        return Status::AlreadyExists("tag name " + options.tag_name +
                                     " is already in use");
      tag.name = options.tag_name;
    }
    tag.description = options.tag_description;
    CVMFS_RETURN_IF_ERROR(history->Insert(tag));
    new_tag = tag.name;
  }
  // CVMFS_AUTO_TAG_TIMESPAN: auto tags older than it go.
  CVMFS_ASSIGN_OR_RETURN(int64_t threshold,
                         AutoTagThreshold(config_.auto_tag_timespan, now));
  if (threshold != 0) {
    CVMFS_ASSIGN_OR_RETURN(std::vector<cvmfs::Tag> all, history->List());
    for (const std::string& name : OutdatedAutoTags(all, threshold))
      if (name != new_tag) CVMFS_RETURN_IF_ERROR(history->Remove(name));
  }
  std::vector<Digest> built_catalogs;
  if (config_.virtual_dir) {
    // As CVMFS: the tags (the new one too) name the revision as built;
    // trunk names it with /.cvmfs/snapshots brought up to date.
    built_catalogs.push_back(commit.root_hash);
    CVMFS_ASSIGN_OR_RETURN(std::vector<cvmfs::Tag> tags, history->List());
    CVMFS_ASSIGN_OR_RETURN(commit, CommitVirtualDir(commit, tags, revision));
    trunk.root_hash = commit.root_hash;
    trunk.size = commit.root_size;
    CVMFS_RETURN_IF_ERROR(history->Insert(trunk));
  }
  if (current.manifest.history)
    CVMFS_RETURN_IF_ERROR(
        history->SetPreviousRevision(*current.manifest.history));
  CVMFS_RETURN_IF_ERROR(history->Close());
  history.reset();
  const std::string history_file = history_file_;
  CVMFS_ASSIGN_OR_RETURN(std::string history_bytes,
                         cvmfs::ReadFile(history_file));
  auto history_hash =
      StoreCompressed(history_bytes, cvmfs::ObjectSuffix::kHistory);
  if (!history_hash.ok())
    return history_hash.status().Annotate("storing the history database");

  cvmfs::Manifest manifest = current.manifest;
  manifest.root_catalog = commit.root_hash;
  manifest.catalog_size = commit.root_size;
  manifest.revision = revision;
  if (options.before_commit)
    CVMFS_RETURN_IF_ERROR(options.before_commit(commit.root_hash, revision));
  CVMFS_RETURN_IF_ERROR(
      WriteManifest(manifest, &*history_hash, built_catalogs));

  PublishStats stats;
  stats.revision = revision;
  stats.root_hash = commit.root_hash;
  stats.catalogs_written = commit.committed_catalogs.size();
  return stats;
}

IngestOptions Repository::PipelineOptions() const {
  IngestOptions ingest;
  ingest.hash_algorithm = config_.hash_algorithm;
  ingest.compression = config_.compression;
  ingest.use_chunking = config_.use_chunking;
  ingest.chunking = config_.chunking;
  ingest.workers = config_.num_workers;
  return ingest;
}

Status Repository::RefuseOnGateway(const std::string& what) const {
  if (!config_.on_gateway()) return Status::Ok();
  return Status::NotSupported(
      what + " is not possible on a publisher machine of a gateway (" +
      config_.fqrn + " is published through " + config_.gateway_url +
      "): use cvmfs_server transaction and publish, or run it on the "
      "gateway's machine");
}

Result<PublishStats> Repository::Publish(const BuildFn& build,
                                         const PublishOptions& options) {
  CVMFS_RETURN_IF_ERROR(RefuseOnGateway("this publish"));
  CVMFS_RETURN_IF_ERROR(Lock());
  CVMFS_RETURN_IF_ERROR(RefuseDuringTransaction(options));
  CVMFS_ASSIGN_OR_RETURN(auto current, CurrentManifest());
  CVMFS_ASSIGN_OR_RETURN(std::string work, MakeTempDir());
  cvmfs::ScopedRemoveTree cleanup(work);

  const CatalogTreeOptions tree_options{config_.hash_algorithm, config_.ttl,
                                        work};
  CVMFS_ASSIGN_OR_RETURN(
      auto tree, CatalogTree::Open(store_.get(), current.manifest.root_catalog,
                                   tree_options));
  IngestOptions ingest = PipelineOptions();
  ingest.progress = options.progress;
  std::vector<std::string> warnings;
  auto index = ContentIndex::Open(
      SpoolLayout::For(paths_, config_.fqrn, config_.spool_dir).content_index);
  if (index.ok()) {
    ingest.content_index = index->get();
  } else {
    warnings.push_back("content index unusable, every file is compressed: " +
                       index.status().ToString());
  }
  IngestPipeline pipeline(store_.get(), ingest);
  Status built = build(tree.get(), &pipeline);
  pipeline.Drain();
  if (index.ok()) {
    Status flushed = (*index)->Flush();
    if (!flushed.ok())
      warnings.push_back("content index not updated: " + flushed.ToString());
  }
  CVMFS_RETURN_IF_ERROR(built);

  BundleWriter bundles(store_.get(), config_.hash_algorithm);
  const auto bundles_start = std::chrono::steady_clock::now();
  if (options.bundle_all_directories) {
    if (!config_.bundles)
      return Status::InvalidArgument(
          "CVMFS_BUNDLES is false in the configuration of " + config_.fqrn +
          ": no bundles are written");
    CVMFS_ASSIGN_OR_RETURN(std::set<std::string> all,
                           AllDirectories(tree.get()));
    CVMFS_RETURN_IF_ERROR(UpdateBundles(tree.get(), all, true, &bundles));
  } else {
    CVMFS_RETURN_IF_ERROR(UpdateBundles(tree.get(), tree->changed_file_dirs(),
                                        config_.bundles, &bundles));
  }
  const double bundle_seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    bundles_start)
          .count();

  CVMFS_ASSIGN_OR_RETURN(
      PublishStats stats,
      CommitRevision(tree.get(), current.manifest.revision + 1, options));
  stats.bundle_directories = bundles.stats().directories;
  stats.bundles_written = bundles.stats().bundles_written;
  stats.bundle_bytes = bundles.stats().bytes_written;
  stats.bundle_seconds = bundle_seconds;
  const IngestStats& is = pipeline.stats();
  stats.files = is.files;
  stats.bytes_in = is.bytes_in;
  stats.objects_stored = is.objects_stored;
  stats.objects_existing = is.objects_existing;
  stats.bytes_stored = is.bytes_stored;
  stats.objects_recognized = is.objects_recognized;
  stats.stale_temporaries_removed = stale_temporaries_removed_;
  stats.warnings = std::move(warnings);
  return stats;
}

Result<PublishStats> Repository::PublishOldRoot(const Digest& old_root,
                                                const PublishOptions& options) {
  CVMFS_RETURN_IF_ERROR(RefuseOnGateway("a rollback"));
  CVMFS_RETURN_IF_ERROR(Lock());
  CVMFS_RETURN_IF_ERROR(RefuseDuringTransaction(options));
  CVMFS_ASSIGN_OR_RETURN(auto current, CurrentManifest());
  CVMFS_ASSIGN_OR_RETURN(std::string work, MakeTempDir());
  cvmfs::ScopedRemoveTree cleanup(work);
  const CatalogTreeOptions tree_options{config_.hash_algorithm, config_.ttl,
                                        work};
  CVMFS_ASSIGN_OR_RETURN(
      auto tree, CatalogTree::Open(store_.get(), old_root, tree_options));
  // Touch the root so that it is re-committed with the new revision number.
  CVMFS_ASSIGN_OR_RETURN(auto root, tree->Lookup(""));
  if (!root) return Status::Corruption("root catalog without root entry");
  CVMFS_RETURN_IF_ERROR(tree->Put("", *root));
  return CommitRevision(tree.get(), current.manifest.revision + 1, options);
}

Status Repository::CommitHistory(std::unique_ptr<cvmfs::HistoryDb> history) {
  CVMFS_RETURN_IF_ERROR(Lock());
  CVMFS_ASSIGN_OR_RETURN(auto current, CurrentManifest());
  if (config_.virtual_dir) {
    // As CVMFS: a tag change refreshes /.cvmfs/snapshots, in a new
    // revision that trunk names.
    CVMFS_ASSIGN_OR_RETURN(std::vector<cvmfs::Tag> tags, history->List());
    CommitResult head;
    head.root_hash = current.manifest.root_catalog;
    head.root_size = current.manifest.catalog_size;
    const uint64_t revision = current.manifest.revision + 1;
    CVMFS_ASSIGN_OR_RETURN(CommitResult commit,
                           CommitVirtualDir(head, tags, revision));
    CVMFS_ASSIGN_OR_RETURN(auto trunk, history->Get("trunk"));
    if (trunk) {
      trunk->root_hash = commit.root_hash;
      trunk->size = commit.root_size;
      trunk->revision = revision;
      CVMFS_RETURN_IF_ERROR(history->Insert(*trunk));
    }
    current.manifest.root_catalog = commit.root_hash;
    current.manifest.catalog_size = commit.root_size;
    current.manifest.revision = revision;
  }
  if (current.manifest.history)
    CVMFS_RETURN_IF_ERROR(
        history->SetPreviousRevision(*current.manifest.history));
  CVMFS_RETURN_IF_ERROR(history->Close());
  history.reset();
  const std::string file = history_file_;
  CVMFS_ASSIGN_OR_RETURN(std::string bytes, cvmfs::ReadFile(file));
  CVMFS_ASSIGN_OR_RETURN(Digest hash,
                         StoreCompressed(bytes, cvmfs::ObjectSuffix::kHistory));
  return WriteManifest(current.manifest, &hash);
}

Result<std::string> Repository::Metainfo() {
  CVMFS_ASSIGN_OR_RETURN(auto current, CurrentManifest());
  if (!current.manifest.metainfo)
    return Status::NotFound("the manifest of " + config_.fqrn +
                            " names no meta information");
  return cvmfs::ReadVerifiedObject(store_.get(), *current.manifest.metainfo,
                                   cvmfs::ObjectSuffix::kMetainfo);
}

Status Repository::SetMetainfo(const std::string& json) {
  Status valid = ValidateJson(json);
  if (!valid.ok())
    return Status::InvalidArgument("the meta information is not valid JSON: " +
                                   valid.ToString());
  CVMFS_RETURN_IF_ERROR(Lock());
  CVMFS_ASSIGN_OR_RETURN(auto current, CurrentManifest());
  CVMFS_ASSIGN_OR_RETURN(Digest hash,
                         StoreCompressed(json, cvmfs::ObjectSuffix::kMetainfo));
  current.manifest.metainfo = hash;
  return WriteManifest(current.manifest, nullptr);
}

Status Repository::Resign(int days) {
  KeyFiles keys = KeyFiles::In(config_.keys_dir, config_.fqrn);
  auto master_pem = cvmfs::ReadFile(keys.master_key);
  if (!master_pem.ok())
    return master_pem.status().Annotate(
        "master key (needed to sign the whitelist)");
  CVMFS_ASSIGN_OR_RETURN(auto master, cvmfs::PrivateKey::FromPem(*master_pem));
  auto wl = cvmfs::Whitelist::Create(config_.fqrn, certificate_->Fingerprint(),
                                     ::time(nullptr), days);
  CVMFS_ASSIGN_OR_RETURN(
      std::string bytes,
      cvmfs::SignWhitelist(wl, master, config_.hash_algorithm));
  return store_->Put(std::string(cvmfs::kWhitelistName), bytes);
}

Status Repository::ResignManifest() {
  CVMFS_RETURN_IF_ERROR(Lock());
  CVMFS_ASSIGN_OR_RETURN(std::string text,
                         store_->Get(std::string(cvmfs::kManifestName)));
  auto old = cvmfs::Manifest::Parse(text);
  if (!old.ok()) return old.status().Annotate("manifest of " + config_.fqrn);
  return WriteManifest(old->manifest, nullptr);
}

namespace {

// The configuration of a new repository, from mkfs's options.
ServerConfig MkfsConfig(const cvmfs::SystemPaths& paths,
                        const MkfsOptions& options) {
  ServerConfig config;
  config.fqrn = options.fqrn;
  config.owner = options.owner;
  config.stratum0_url = options.stratum0_url.empty()
                            ? "http://localhost/cvmfs/" + options.fqrn
                            : options.stratum0_url;
  if (!options.gateway_url.empty()) {
    config.gateway_url = options.gateway_url;
  } else if (options.s3_config_file.empty()) {
    config.storage_dir = paths.Storage(options.fqrn);
  } else {
    config.s3_config_file = options.s3_config_file;
    config.s3_prefix = options.fqrn;
    // -w plus the repository name, as in CVMFS (Mkfs checked -w).
    auto url = S3RepositoryUrl(options.stratum0_url, options.fqrn, "mkfs -s");
    if (url.ok()) config.stratum0_url = *url;
  }
  config.spool_dir = paths.Spool(options.fqrn);
  config.keys_dir = paths.KeysDir();
  config.hash_algorithm = options.hash_algorithm;
  config.compression = options.compression;
  config.external_data = options.external_data;
  config.garbage_collection = options.garbage_collection;
  return config;
}

// The signing keys of a new repository, written to its keys directory: a
// master key is reused if one exists for this name; the repository key and
// its certificate are new.
struct MkfsKeys {
  cvmfs::PrivateKey master;
  cvmfs::Certificate certificate;
};

// mkfs -k: copies the keys of `from` into the keys directory (as CVMFS,
// keys already there are kept, but must not differ) and loads them.
Result<MkfsKeys> ImportKeys(const ServerConfig& config,
                            const std::string& from) {
  KeyFiles src = KeyFiles::In(from, config.fqrn);
  KeyFiles dst = KeyFiles::In(config.keys_dir, config.fqrn);
  struct Item {
    std::string from, to;
    int mode;
  };
  std::string pems[4];
  const Item items[4] = {{src.master_key, dst.master_key, 0400},
                         {src.master_pub, dst.master_pub, 0444},
                         {src.repo_key, dst.repo_key, 0400},
                         {src.repo_crt, dst.repo_crt, 0444}};
  for (int i = 0; i < 4; ++i) {
    auto pem = cvmfs::ReadFile(items[i].from);
    if (!pem.ok())
      return pem.status().Annotate("importing keys (-k " + from + ")");
    pems[i] = *pem;
    auto there = cvmfs::ReadFile(items[i].to);
    if (there.ok() && *there != pems[i])
      return Status::AlreadyExists("importing keys from " + from +
                                   " would overwrite " + items[i].to);
  }
  CVMFS_ASSIGN_OR_RETURN(auto master, cvmfs::PrivateKey::FromPem(pems[0]));
  CVMFS_ASSIGN_OR_RETURN(auto pub, cvmfs::PublicKey::FromPem(pems[1]));
  if (master.PublicPem() != pub.ToPem())
    return Status::InvalidArgument(src.master_key + " does not belong to " +
                                   src.master_pub);
  CVMFS_ASSIGN_OR_RETURN(auto repo_key, cvmfs::PrivateKey::FromPem(pems[2]));
  CVMFS_ASSIGN_OR_RETURN(auto cert, cvmfs::Certificate::FromPem(pems[3]));
  CVMFS_ASSIGN_OR_RETURN(auto cert_key, cert.GetPublicKey());
  if (repo_key.PublicPem() != cert_key.ToPem())
    return Status::InvalidArgument(src.repo_key + " does not belong to " +
                                   src.repo_crt);
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.keys_dir));
  for (int i = 0; i < 4; ++i)
    if (!cvmfs::PathExists(items[i].to))
      CVMFS_RETURN_IF_ERROR(
          cvmfs::WriteFileAtomic(items[i].to, pems[i], items[i].mode));
  return MkfsKeys{std::move(master), std::move(cert)};
}

Result<MkfsKeys> CreateKeys(const ServerConfig& config) {
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.keys_dir));
  KeyFiles keys = KeyFiles::In(config.keys_dir, config.fqrn);
  std::optional<cvmfs::PrivateKey> master;
  if (cvmfs::PathExists(keys.master_key)) {
    CVMFS_ASSIGN_OR_RETURN(std::string pem, cvmfs::ReadFile(keys.master_key));
    CVMFS_ASSIGN_OR_RETURN(auto k, cvmfs::PrivateKey::FromPem(pem));
    master.emplace(std::move(k));
  } else {
    CVMFS_ASSIGN_OR_RETURN(auto k, cvmfs::PrivateKey::Generate(2048));
    CVMFS_RETURN_IF_ERROR(
        cvmfs::WriteFileAtomic(keys.master_key, k.ToPem(), 0400));
    master.emplace(std::move(k));
  }
  CVMFS_RETURN_IF_ERROR(
      cvmfs::WriteFileAtomic(keys.master_pub, master->PublicPem(), 0444));
  CVMFS_ASSIGN_OR_RETURN(auto repo_key, cvmfs::PrivateKey::Generate(2048));
  CVMFS_ASSIGN_OR_RETURN(
      auto cert,
      cvmfs::Certificate::CreateSelfSigned(
          repo_key, config.fqrn + " CernVM-FS Release Managers", 365));
  CVMFS_RETURN_IF_ERROR(
      cvmfs::WriteFileAtomic(keys.repo_key, repo_key.ToPem(), 0400));
  CVMFS_RETURN_IF_ERROR(
      cvmfs::WriteFileAtomic(keys.repo_crt, cert.ToPem(), 0444));
  return MkfsKeys{std::move(*master), std::move(cert)};
}

// The storage layout, the spool, the replication marker and the whitelist.
Status CreateStorage(const ServerConfig& config, const MkfsKeys& keys,
                     int whitelist_days, cvmfs::ObjectStore* store) {
  if (!config.on_s3())
    CVMFS_RETURN_IF_ERROR(
        cvmfs::LocalObjectStore(config.storage_dir).CreateLayout());
  // The spool is 0755 (the read-only mount's client, running as
  // CVMFS_USER, passes it); its tmp/ is private.
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.spool_dir, 0755));
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.spool_dir + "/tmp", 0700));
  CVMFS_RETURN_IF_ERROR(store->Put(
      std::string(cvmfs::kMasterReplicaName),
      "This file marks the repository as replicatable to stratum 1 servers\n"));
  auto wl =
      cvmfs::Whitelist::Create(config.fqrn, keys.certificate.Fingerprint(),
                               ::time(nullptr), whitelist_days);
  CVMFS_ASSIGN_OR_RETURN(
      std::string wl_bytes,
      cvmfs::SignWhitelist(wl, keys.master, config.hash_algorithm));
  return store->Put(std::string(cvmfs::kWhitelistName), wl_bytes);
}

// CVMFS's template of the repository's meta information, stored as an
// object.
Result<Digest> StoreMetainfo(const ServerConfig& config,
                             cvmfs::ObjectStore* store) {
  std::string metainfo =
      "{\n  \"administrator\" : \"Your Name\",\n  \"email\"         : "
      "\"you@organisation.org\",\n"
      "  \"organisation\"  : \"Your Organisation\",\n  \"description\"   : "
      "\"Repository content\",\n"
      "  \"url\"           : \"Project website\",\n  \"recommended-stratum0\": "
      " \"stratum 0 url\",\n"
      "  \"recommended-stratum1s\" : [ \"stratum1 url\", \"stratum1 url\" "
      "],\n\n"
      "  \"custom\" : {\n    \"_comment\" : \"Put arbitrary structured data "
      "here\"\n  }\n}\n";
  return cvmfs::StoreObject(store, metainfo, cvmfs::ObjectSuffix::kMetainfo,
                            config.hash_algorithm);
}

// The history of revision 1 (its trunk tag), stored as an object.
Result<Digest> StoreFirstHistory(const ServerConfig& config,
                                 const CommitResult& commit, int64_t now,
                                 const std::string& tmp,
                                 cvmfs::ObjectStore* store) {
  std::string history_file = tmp + "/history.db";
  CVMFS_ASSIGN_OR_RETURN(auto history,
                         cvmfs::HistoryDb::Create(history_file, config.fqrn));
  cvmfs::Tag trunk;
  trunk.name = "trunk";
  trunk.root_hash = commit.root_hash;
  trunk.revision = 1;
  trunk.timestamp = now;
  trunk.description = "current HEAD";
  trunk.size = commit.root_size;
  CVMFS_RETURN_IF_ERROR(history->Insert(trunk));
  history.reset();
  CVMFS_ASSIGN_OR_RETURN(std::string hbytes, cvmfs::ReadFile(history_file));
  return cvmfs::StoreObject(store, hbytes, cvmfs::ObjectSuffix::kHistory,
                            config.hash_algorithm);
}

}  // namespace

// mkfs -u gw,...: the keys a publisher machine of a gateway needs, copied
// from -k (kept if the same are there), and the repository as served.
Status MkfsGatewayPublisher(const cvmfs::SystemPaths& paths,
                            const ServerConfig& config,
                            const MkfsOptions& options) {
  if (options.import_keys_dir.empty())
    return Status::InvalidArgument(
        "mkfs -u gw,... needs -k <dir> with the repository's " + config.fqrn +
        ".pub, .crt and .gw from the gateway machine");
  if (options.stratum0_url.empty())
    return Status::InvalidArgument(
        "mkfs -u gw,... needs -w <stratum 0 URL>: the repository is read "
        "from there");
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.keys_dir));
  for (const char* ext : {".pub", ".crt", ".gw"}) {
    const std::string from = options.import_keys_dir + "/" + config.fqrn + ext;
    const std::string to = config.keys_dir + "/" + config.fqrn + ext;
    auto bytes = cvmfs::ReadFile(from);
    if (!bytes.ok()) return bytes.status().Annotate("importing keys (-k)");
    auto there = cvmfs::ReadFile(to);
    if (there.ok() && *there != *bytes)
      return Status::AlreadyExists("importing keys from " +
                                   options.import_keys_dir +
                                   " would overwrite " + to);
    if (!there.ok())
      CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(
          to, *bytes, std::string(ext) == ".gw" ? 0600 : 0444));
  }
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.spool_dir, 0755));
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.spool_dir + "/tmp", 0700));
  const std::string config_file = config.ConfigFile(paths);
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(paths.ServerConfigDir(config.fqrn)));
  CVMFS_RETURN_IF_ERROR(
      cvmfs::WriteFileAtomic(config_file, config.ToKeyValues().Serialize()));
  // The repository must be there, signed by the certificate we got.
  auto repo = Repository::Open(paths, config.fqrn);
  auto served = repo.ok() ? (*repo)->CurrentManifest()
                          : Result<cvmfs::SignedManifest>(repo.status());
  if (!served.ok()) {
    (void)cvmfs::RemoveTree(paths.ServerConfigDir(config.fqrn));
    return served.status().Annotate("reading " + config.fqrn + " from " +
                                    config.stratum0_url);
  }
  // Objects and catalogs are named with the repository's hash algorithm,
  // whatever -a said.
  const cvmfs::HashAlgorithm algorithm =
      served->manifest.root_catalog.algorithm;
  if (algorithm == config.hash_algorithm) return Status::Ok();
  ServerConfig adjusted = config;
  adjusted.hash_algorithm = algorithm;
  return cvmfs::WriteFileAtomic(config_file,
                                adjusted.ToKeyValues().Serialize());
}

Status Mkfs(const cvmfs::SystemPaths& paths, const MkfsOptions& options) {
  CVMFS_RETURN_IF_ERROR(ValidateFqrn(options.fqrn));
  if (!options.s3_config_file.empty())
    CVMFS_RETURN_IF_ERROR(
        S3RepositoryUrl(options.stratum0_url, options.fqrn, "mkfs -s")
            .status());
  ServerConfig config = MkfsConfig(paths, options);
  std::string config_file = config.ConfigFile(paths);
  if (cvmfs::PathExists(config_file))
    return Status::AlreadyExists("repository " + options.fqrn +
                                 " already exists (" + config_file +
                                 "); remove it first with cvmfs_server rmfs");
  if (config.on_gateway()) return MkfsGatewayPublisher(paths, config, options);
  CVMFS_ASSIGN_OR_RETURN(std::unique_ptr<cvmfs::ObjectStore> store,
                         OpenObjectStore(config));
  if (store->Exists(std::string(cvmfs::kManifestName)))
    return Status::AlreadyExists(
        "storage " +
        (config.on_s3() ? "S3 " + config.s3_prefix + "@" + config.s3_config_file
                        : config.storage_dir) +
        " already holds a repository");

  CVMFS_ASSIGN_OR_RETURN(MkfsKeys keys,
                         options.import_keys_dir.empty()
                             ? CreateKeys(config)
                             : ImportKeys(config, options.import_keys_dir));
  CVMFS_RETURN_IF_ERROR(
      CreateStorage(config, keys, options.whitelist_days, store.get()));

  // Revision 1: an empty root directory, its history and the manifest.
  std::string tmp = TempDirTemplate(config.spool_dir + "/tmp", "mkfs");
  if (!::mkdtemp(tmp.data()))
    return Status::FromErrno(errno, "creating " + tmp);
  cvmfs::ScopedRemoveTree cleanup(tmp);
  cvmfs::DirectoryEntry root;
  root.mode = 040755;
  root.size = 4096;
  root.mtime = ::time(nullptr);
  root.linkcount = 2;
  CatalogTreeOptions tree_options{config.hash_algorithm, config.ttl, tmp};
  CVMFS_ASSIGN_OR_RETURN(
      auto tree, CatalogTree::CreateEmpty(store.get(), root, tree_options));
  const int64_t now = ::time(nullptr);
  CVMFS_ASSIGN_OR_RETURN(CommitResult commit, tree->Commit(1, now));
  CVMFS_ASSIGN_OR_RETURN(Digest meta_hash, StoreMetainfo(config, store.get()));

  // Write the configuration last: until then the repository does not exist.
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(paths.ServerConfigDir(options.fqrn)));
  CVMFS_RETURN_IF_ERROR(
      cvmfs::WriteFileAtomic(config_file, config.ToKeyValues().Serialize()));
  // A placeholder manifest so that Repository::Open and WriteManifest can
  // run: it is replaced below before anything serves it.
  CVMFS_ASSIGN_OR_RETURN(auto repo, Repository::Open(paths, options.fqrn));
  cvmfs::Manifest manifest;
  manifest.root_catalog = commit.root_hash;
  manifest.catalog_size = commit.root_size;
  manifest.revision = 1;
  manifest.metainfo = meta_hash;
  CVMFS_ASSIGN_OR_RETURN(
      Digest history_hash,
      StoreFirstHistory(config, commit, now, tmp, store.get()));
  return repo->WriteManifest(manifest, &history_hash);
}

}  // namespace publisher
