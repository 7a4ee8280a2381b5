#include "publisher/import.h"

#include <unistd.h>

#include <cstdio>
#include <ctime>
#include <memory>
#include <optional>
#include <set>
#include <utility>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/catalog/reflog_db.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "cvmfs/signature.h"
#include "cvmfs/whitelist.h"
#include "publisher/object_store_factory.h"
#include "publisher/repository.h"
#include "publisher/s3_config.h"
#include "publisher/server_config.h"

namespace publisher {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;

Result<ImportOptions> WithDefaults(const cvmfs::SystemPaths& paths,
                                   ImportOptions options) {
  if (!options.s3_config_file.empty()) {
    CVMFS_ASSIGN_OR_RETURN(
        options.stratum0_url,
        S3RepositoryUrl(options.stratum0_url, options.s3_prefix,
                        "import -u S3,..."));
    options.storage_dir.clear();
  } else {
    if (options.stratum0_url.empty())
      options.stratum0_url = "http://localhost/cvmfs/" + options.fqrn;
    if (options.storage_dir.empty())
      options.storage_dir = paths.Storage(options.fqrn);
  }
  if (options.keys_dir.empty()) options.keys_dir = paths.KeysDir();
  return options;
}

std::string StorageName(const ImportOptions& o) {
  return o.s3_config_file.empty()
             ? o.storage_dir
             : "S3 " + o.s3_prefix + "@" + o.s3_config_file;
}

namespace {

// The key files Import reads, loaded and checked against each other.
struct ImportKeys {
  std::string pub_pem, key_pem, crt_pem, masterkey_pem;  // masterkey optional
  std::optional<cvmfs::Certificate> certificate;
  std::optional<cvmfs::PublicKey> master_pub;
};

Result<std::string> ReadKeyFile(const std::string& path, const char* what) {
  if (!cvmfs::PathExists(path))
    return Status::NotFound(std::string(what) + " " + path + " not found");
  return cvmfs::ReadFile(path);
}

Result<ImportKeys> LoadKeys(const ImportOptions& o) {
  KeyFiles files = KeyFiles::In(o.keys_dir, o.fqrn);
  ImportKeys k;
  CVMFS_ASSIGN_OR_RETURN(k.pub_pem,
                         ReadKeyFile(files.master_pub, "master public key"));
  CVMFS_ASSIGN_OR_RETURN(k.key_pem,
                         ReadKeyFile(files.repo_key, "repository signing key"));
  CVMFS_ASSIGN_OR_RETURN(k.crt_pem,
                         ReadKeyFile(files.repo_crt, "repository certificate"));
  if (cvmfs::PathExists(files.master_key)) {
    CVMFS_ASSIGN_OR_RETURN(k.masterkey_pem, cvmfs::ReadFile(files.master_key));
  } else if (o.recreate_whitelist) {
    return Status::NotFound("master key " + files.master_key +
                            " not found: it is needed to re-sign the "
                            "whitelist (-r)");
  }
  CVMFS_ASSIGN_OR_RETURN(auto pub, cvmfs::PublicKey::FromPem(k.pub_pem));
  k.master_pub.emplace(std::move(pub));
  CVMFS_ASSIGN_OR_RETURN(auto crt, cvmfs::Certificate::FromPem(k.crt_pem));
  k.certificate.emplace(std::move(crt));

  CVMFS_ASSIGN_OR_RETURN(auto key, cvmfs::PrivateKey::FromPem(k.key_pem));
  CVMFS_ASSIGN_OR_RETURN(auto crt_key, k.certificate->GetPublicKey());
  if (key.PublicPem() != crt_key.ToPem())
    return Status::InvalidArgument("the repository key " + files.repo_key +
                                   " does not belong to the certificate " +
                                   files.repo_crt);
  if (!k.masterkey_pem.empty()) {
    CVMFS_ASSIGN_OR_RETURN(auto master,
                           cvmfs::PrivateKey::FromPem(k.masterkey_pem));
    if (master.PublicPem() != k.master_pub->ToPem())
      return Status::InvalidArgument("the master key " + files.master_key +
                                     " does not belong to " + files.master_pub);
  }
  return k;
}

Status CheckStorageLayout(const std::string& storage) {
  std::vector<std::string> needed = {storage, storage + "/.cvmfspublished",
                                     storage + "/data", storage + "/data/txn"};
  for (int i = 0; i < 256; ++i) {
    char sub[8];
    std::snprintf(sub, sizeof(sub), "%02x", i);
    needed.push_back(storage + "/data/" + sub);
  }
  for (const std::string& item : needed)
    if (!cvmfs::PathExists(item))
      return Status::NotFound("storage incomplete: " + item + " missing");
  return Status::Ok();
}

// The storage to take over, once it holds a repository.
Result<std::unique_ptr<cvmfs::ObjectStore>> OpenStorage(
    const ImportOptions& o) {
  if (o.s3_config_file.empty()) {
    CVMFS_RETURN_IF_ERROR(CheckStorageLayout(o.storage_dir));
    return std::unique_ptr<cvmfs::ObjectStore>(
        std::make_unique<cvmfs::LocalObjectStore>(o.storage_dir));
  }
  CVMFS_ASSIGN_OR_RETURN(auto store,
                         OpenS3ObjectStore(o.s3_config_file, o.s3_prefix));
  auto size = store->Size(std::string(cvmfs::kManifestName));
  if (size.status().IsNotFound())
    return Status::NotFound("storage incomplete: " + o.s3_prefix + "/" +
                            std::string(cvmfs::kManifestName) +
                            " missing in the bucket of " + o.s3_config_file);
  CVMFS_RETURN_IF_ERROR(size.status());
  return store;
}

// The manifest, certificate and whitelist of the storage against the keys.
Status CheckTrustChain(const ImportOptions& o, const ImportKeys& keys,
                       cvmfs::ObjectStore* store,
                       const cvmfs::SignedManifest& manifest,
                       ImportReport* report) {
  const std::string where =
      " (storage " + StorageName(o) + ", keys " + o.keys_dir + ")";
  if (!manifest.manifest.fqrn.empty() && manifest.manifest.fqrn != o.fqrn)
    return Status::InvalidArgument("the storage holds repository " +
                                   manifest.manifest.fqrn + ", not " + o.fqrn +
                                   where);
  if (!manifest.manifest.certificate)
    return Status::Corruption("the manifest names no certificate" + where);
  auto stored_crt = cvmfs::ReadVerifiedObject(
      store, *manifest.manifest.certificate, cvmfs::ObjectSuffix::kCertificate);
  if (!stored_crt.ok())
    return stored_crt.status().Annotate("certificate of the manifest");
  CVMFS_ASSIGN_OR_RETURN(auto crt, cvmfs::Certificate::FromPem(*stored_crt));
  if (crt.Fingerprint() != keys.certificate->Fingerprint())
    return Status::InvalidArgument(
        "keys do not match the storage: the manifest's certificate is not " +
        o.fqrn + ".crt" + where);
  Status signed_ok = cvmfs::VerifyManifest(manifest, *keys.certificate);
  if (!signed_ok.ok())
    return Status::InvalidArgument(
        "keys do not match the storage: the manifest is not signed by " +
        o.fqrn + ".key (" + signed_ok.message() + ")" + where);

  auto wl_text = store->Get(std::string(cvmfs::kWhitelistName));
  if (!wl_text.ok()) {
    if (o.recreate_whitelist) return Status::Ok();
    return wl_text.status().Annotate("whitelist (re-sign it with -r)");
  }
  auto wl = cvmfs::Whitelist::Parse(*wl_text);
  if (!wl.ok()) {
    if (o.recreate_whitelist) return Status::Ok();
    return wl.status().Annotate("whitelist (re-sign it with -r)");
  }
  std::vector<cvmfs::PublicKey> masters;
  CVMFS_ASSIGN_OR_RETURN(auto pub, cvmfs::PublicKey::FromPem(keys.pub_pem));
  masters.push_back(std::move(pub));
  Status wl_signed = cvmfs::VerifyWhitelist(*wl, masters);
  if (!wl_signed.ok())
    return Status::InvalidArgument(
        "keys do not match the storage: the whitelist is not signed by the "
        "master key " +
        o.fqrn + ".pub (" + wl_signed.message() + ")" + where);
  if (!wl->whitelist.ListsCertificate(*keys.certificate))
    return Status::InvalidArgument(
        "keys do not match the storage: the whitelist does not list " + o.fqrn +
        ".crt" + where);
  if (wl->whitelist.IsExpired(::time(nullptr))) {
    if (!o.recreate_whitelist)
      return Status::InvalidArgument(
          "the repository whitelist expired on " +
          cvmfs::FormatWhitelistTime(wl->whitelist.expires) +
          " (use -r to re-sign it with the master key)");
    report->whitelist_expired = true;
  }
  return Status::Ok();
}

// A temporary directory for the databases read during the inspection.
class ScratchDir {
 public:
  Status Create() {
    dir_ = "/tmp/cvmfs-import.XXXXXX";
    if (!::mkdtemp(dir_.data()))
      return Status::FromErrno(errno, "creating a temporary directory");
    return Status::Ok();
  }
  ~ScratchDir() {
    if (!dir_.empty()) (void)cvmfs::RemoveTree(dir_);
  }
  const std::string& path() const { return dir_; }

 private:
  std::string dir_;
};

// Reads the tags and checks the reflog against the manifest and them.
Status CheckHistoryAndReflog(cvmfs::ObjectStore* store,
                             const cvmfs::Manifest& m, ImportReport* report) {
  ScratchDir scratch;
  CVMFS_RETURN_IF_ERROR(scratch.Create());
  std::vector<cvmfs::Tag> tags;
  if (m.history) {
    auto raw = cvmfs::ReadVerifiedObject(store, *m.history,
                                         cvmfs::ObjectSuffix::kHistory);
    if (!raw.ok()) return raw.status().Annotate("history of the manifest");
    const std::string file = scratch.path() + "/history.db";
    CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(file, *raw, 0600));
    CVMFS_ASSIGN_OR_RETURN(auto history, cvmfs::HistoryDb::OpenReadOnly(file));
    CVMFS_ASSIGN_OR_RETURN(tags, history->List());
  }
  report->tags = tags.size();

  auto reflog_bytes = store->Get(std::string(cvmfs::kReflogName));
  if (!reflog_bytes.ok()) {
    report->warnings.push_back(
        "the storage has no reflog (.cvmfsreflog); the next publish starts a "
        "new one");
    return Status::Ok();
  }
  if (m.reflog) {
    Digest actual = cvmfs::HashString(m.reflog->algorithm, *reflog_bytes);
    // gc rewrites the reflog but not the manifest (nor does CVMFS's).
    if (!(actual == *m.reflog))
      report->warnings.push_back(
          "the reflog (.cvmfsreflog) is not the one the manifest names (Y" +
          m.reflog->ToString() + ", found " + actual.ToString() +
          "): expected after a garbage collection, else suspicious");
  }
  const std::string file = scratch.path() + "/reflog.db";
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(file, *reflog_bytes, 0600));
  auto reflog = cvmfs::ReflogDb::OpenReadOnly(file);
  if (!reflog.ok()) return reflog.status().Annotate("the reflog .cvmfsreflog");
  auto entries = (*reflog)->List();
  if (!entries.ok())
    return entries.status().Annotate("the reflog .cvmfsreflog");
  report->reflog_entries = entries->size();
  std::vector<std::pair<Digest, std::string>> expected = {
      {m.root_catalog, "the current root catalog"}};
  if (m.history) expected.push_back({*m.history, "the current history"});
  if (m.certificate) expected.push_back({*m.certificate, "the certificate"});
  for (const cvmfs::Tag& tag : tags)
    expected.push_back({tag.root_hash, "the root catalog of tag " + tag.name});
  std::set<Digest> listed;
  for (const auto& entry : *entries) listed.insert(entry.first);
  for (const auto& [digest, what] : expected)
    if (!listed.count(digest))
      report->warnings.push_back("the reflog does not list " + what + " (" +
                                 digest.ToString() + ")");
  return Status::Ok();
}

ServerConfig ImportConfig(const cvmfs::SystemPaths& paths,
                          const ImportOptions& o, const ImportReport& r) {
  ServerConfig c;
  c.fqrn = o.fqrn;
  c.owner = o.owner;
  c.stratum0_url = o.stratum0_url;
  c.storage_dir = o.storage_dir;
  c.s3_config_file = o.s3_config_file;
  c.s3_prefix = o.s3_prefix;
  c.spool_dir = paths.Spool(o.fqrn);
  c.keys_dir = paths.KeysDir();
  c.hash_algorithm = r.hash_algorithm;
  c.garbage_collection = r.garbage_collectable;
  c.ttl = r.ttl;
  return c;
}

struct KeyCopy {
  std::string from, to, pem;
  int mode;
};

// The key files to copy into paths.KeysDir(); refuses to replace a
// different file there.
Result<std::vector<KeyCopy>> PlanKeyCopies(const cvmfs::SystemPaths& paths,
                                           const ImportOptions& o,
                                           const ImportKeys& keys) {
  KeyFiles src = KeyFiles::In(o.keys_dir, o.fqrn);
  KeyFiles dst = KeyFiles::In(paths.KeysDir(), o.fqrn);
  std::vector<KeyCopy> all = {
      {src.master_pub, dst.master_pub, keys.pub_pem, 0444},
      {src.repo_key, dst.repo_key, keys.key_pem, 0400},
      {src.repo_crt, dst.repo_crt, keys.crt_pem, 0444}};
  if (!keys.masterkey_pem.empty())
    all.push_back({src.master_key, dst.master_key, keys.masterkey_pem, 0400});
  std::vector<KeyCopy> todo;
  for (KeyCopy& k : all) {
    if (cvmfs::PathExists(k.to)) {
      CVMFS_ASSIGN_OR_RETURN(std::string there, cvmfs::ReadFile(k.to));
      if (there != k.pem)
        return Status::AlreadyExists("importing keys from " + o.keys_dir +
                                     " would overwrite " + k.to +
                                     ", which differs");
      continue;
    }
    todo.push_back(std::move(k));
  }
  return todo;
}

// Removes what an unfinished import wrote, unless Dismiss()ed.
class ImportUndo {
 public:
  ~ImportUndo() {
    if (dismissed_) return;
    for (const std::string& f : files_) (void)::unlink(f.c_str());
    for (const std::string& d : dirs_) (void)cvmfs::RemoveTree(d);
  }
  void AddFile(std::string f) { files_.push_back(std::move(f)); }
  void AddDir(std::string d) { dirs_.push_back(std::move(d)); }
  void Dismiss() { dismissed_ = true; }

 private:
  std::vector<std::string> files_, dirs_;
  bool dismissed_ = false;
};

// InspectImport of options with their defaults.
Result<ImportReport> Inspect(const cvmfs::SystemPaths& paths,
                             const ImportOptions& o) {
  CVMFS_RETURN_IF_ERROR(ValidateFqrn(o.fqrn));
  const std::string config_dir = paths.ServerConfigDir(o.fqrn);
  if (cvmfs::PathExists(config_dir + "/server.conf"))
    return Status::AlreadyExists("repository " + o.fqrn +
                                 " already exists here (" + config_dir +
                                 "/server.conf)");
  CVMFS_ASSIGN_OR_RETURN(auto store, OpenStorage(o));
  CVMFS_ASSIGN_OR_RETURN(ImportKeys keys, LoadKeys(o));
  CVMFS_ASSIGN_OR_RETURN(std::string text,
                         store->Get(std::string(cvmfs::kManifestName)));
  auto manifest = cvmfs::Manifest::Parse(text);
  if (!manifest.ok())
    return manifest.status().Annotate(StorageName(o) + " .cvmfspublished");

  ImportReport report;
  CVMFS_RETURN_IF_ERROR(
      CheckTrustChain(o, keys, store.get(), *manifest, &report));
  const cvmfs::Manifest& m = manifest->manifest;
  report.revision = m.revision;
  report.hash_algorithm = m.root_catalog.algorithm;
  report.garbage_collectable = m.garbage_collectable;
  report.ttl = m.ttl;
  CVMFS_RETURN_IF_ERROR(CheckHistoryAndReflog(store.get(), m, &report));
  CVMFS_RETURN_IF_ERROR(PlanKeyCopies(paths, o, keys).status());
  return report;
}

}  // namespace

Result<ImportReport> InspectImport(const cvmfs::SystemPaths& paths,
                                   const ImportOptions& options) {
  CVMFS_ASSIGN_OR_RETURN(const ImportOptions o, WithDefaults(paths, options));
  return Inspect(paths, o);
}

Result<ImportReport> Import(const cvmfs::SystemPaths& paths,
                            const ImportOptions& options) {
  CVMFS_ASSIGN_OR_RETURN(const ImportOptions o, WithDefaults(paths, options));
  CVMFS_ASSIGN_OR_RETURN(ImportReport report, Inspect(paths, o));
  CVMFS_ASSIGN_OR_RETURN(ImportKeys keys, LoadKeys(o));
  CVMFS_ASSIGN_OR_RETURN(auto copies, PlanKeyCopies(paths, o, keys));

  ImportUndo undo;
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(paths.KeysDir()));
  for (const KeyCopy& k : copies) {
    undo.AddFile(k.to);
    CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(k.to, k.pem, k.mode));
  }
  const ServerConfig config = ImportConfig(paths, o, report);
  const std::string config_dir = paths.ServerConfigDir(o.fqrn);
  undo.AddDir(config_dir);
  undo.AddDir(config.spool_dir);
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.spool_dir, 0755));
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.spool_dir + "/tmp", 0700));
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config_dir));
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(
      config.ConfigFile(paths), config.ToKeyValues().Serialize()));

  // The repository opens as every later command will open it.
  CVMFS_ASSIGN_OR_RETURN(auto repo, Repository::Open(paths, o.fqrn));
  CVMFS_RETURN_IF_ERROR(repo->CurrentManifest().status());
  if (o.recreate_whitelist)
    CVMFS_RETURN_IF_ERROR(
        repo->Resign(o.whitelist_days).Annotate("re-signing the whitelist"));
  if (o.replicable &&
      !repo->store()->Exists(std::string(cvmfs::kMasterReplicaName)))
    CVMFS_RETURN_IF_ERROR(repo->store()->Put(
        std::string(cvmfs::kMasterReplicaName),
        "This file marks the repository as replicatable to stratum 1 "
        "servers\n"));
  undo.Dismiss();
  return report;
}

}  // namespace publisher
