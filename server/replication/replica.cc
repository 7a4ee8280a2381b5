#include "server/replication/replica.h"

#include <fcntl.h>
#include <pwd.h>
#include <sys/file.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdlib>
#include <optional>

#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "cvmfs/trust_chain.h"
#include "publisher/object_store_factory.h"
#include "publisher/s3_config.h"
#include "server/replication/snapshot_destination.h"
#include "server/replication/source_verifier.h"

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

namespace {

Status ValidateName(const std::string& name) {
  bool ok = !name.empty() && name.size() <= 60 &&
            std::isalnum(static_cast<unsigned char>(name[0]));
  for (char c : name)
    ok = ok && (std::isalnum(static_cast<unsigned char>(c)) || c == '-' ||
                c == '_' || c == '.');
  if (!ok)
    return Status::InvalidArgument(
        "replica name '" + name +
        "' must be 1 to 60 letters, digits, '-', '_' or '.', "
        "starting with a letter or digit");
  return Status::Ok();
}

struct KeyCopy {
  std::string from, to;
};

// Which key files to read, and where they go in etc/cvmfs/keys.
Result<std::vector<KeyCopy>> PlanKeys(const cvmfs::SystemPaths& paths,
                                      const std::string& given) {
  std::vector<KeyCopy> plan;
  if (!cvmfs::IsDirectory(given)) {
    if (!cvmfs::PathExists(given))
      return Status::NotFound("public key " + given + " does not exist");
    plan.push_back({given, ""});  // destination named after the fqrn, later
    return plan;
  }
  CVMFS_ASSIGN_OR_RETURN(auto names, cvmfs::ListDirectory(given));
  for (const std::string& n : names)
    if (n.size() > 4 && n.compare(n.size() - 4, 4, ".pub") == 0)
      plan.push_back({given + "/" + n, paths.KeysDir() + "/" + n});
  if (plan.empty()) return Status::NotFound("no *.pub key files in " + given);
  return plan;
}

// Copies a key unless an identical one is there already; never replaces a
// different key (another repository may rely on it).
Status InstallKey(const KeyCopy& key) {
  CVMFS_ASSIGN_OR_RETURN(std::string pem, cvmfs::ReadFile(key.from));
  if (cvmfs::PathExists(key.to)) {
    CVMFS_ASSIGN_OR_RETURN(std::string existing, cvmfs::ReadFile(key.to));
    if (existing == pem) return Status::Ok();
    return Status::AlreadyExists("a different key is installed as " + key.to +
                                 "; remove it or give the key directory");
  }
  return cvmfs::WriteFileAtomic(key.to, pem, 0444);
}

Status ChownTree(const std::string& owner,
                 const std::vector<std::string>& dirs) {
  struct passwd* pw = ::getpwnam(owner.c_str());
  if (!pw) return Status::InvalidArgument("unknown user '" + owner + "' (-o)");
  for (const std::string& dir : dirs) {
    if (::chown(dir.c_str(), pw->pw_uid, pw->pw_gid) != 0)
      return Status::FromErrno(errno, "chown " + owner + " " + dir);
  }
  return Status::Ok();
}

Status CreateStorage(const ReplicaConfig& config) {
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.spool_dir + "/tmp", 0700));
  std::vector<std::string> dirs = {config.spool_dir, config.spool_dir + "/tmp"};
  if (config.on_s3()) return ChownTree(config.owner, dirs);  // no storage dir
  cvmfs::LocalObjectStore store(config.storage_dir);
  CVMFS_RETURN_IF_ERROR(store.CreateLayout());
  for (const char* d : {"", "/data", "/data/txn"})
    dirs.push_back(config.storage_dir + d);
  for (int i = 0; i < 256; ++i) {
    uint8_t b = static_cast<uint8_t>(i);
    dirs.push_back(config.storage_dir + "/data/" + cvmfs::ToHex(&b, 1));
  }
  return ChownTree(config.owner, dirs);
}

// Removes everything in `dir` (it stays); a missing directory is fine.
Status EmptyDirectory(const std::string& dir) {
  auto names = cvmfs::ListDirectory(dir);
  if (!names.ok())
    return names.status().IsNotFound() ? Status::Ok() : names.status();
  for (const std::string& n : *names)
    CVMFS_RETURN_IF_ERROR(cvmfs::RemoveTree(dir + "/" + n));
  return Status::Ok();
}

// The trust chain of a replica's storage, for adopting it.
class StoredChain : public cvmfs::TrustChainSource {
 public:
  explicit StoredChain(cvmfs::ObjectStore* store) : store_(store) {}
  Result<std::string> FetchWhitelist() override {
    return store_->Get(std::string(cvmfs::kWhitelistName));
  }
  Result<std::string> FetchManifest() override {
    return store_->Get(std::string(cvmfs::kManifestName));
  }
  Result<std::string> FetchCertificate(const cvmfs::Digest& digest,
                                       const std::string&) override {
    return cvmfs::ReadVerifiedObject(store_, digest,
                                     cvmfs::ObjectSuffix::kCertificate);
  }

 private:
  cvmfs::ObjectStore* const store_;  // not owned
};

// A storage that already holds a repository (an existing Stratum 1, e.g.
// one CVMFS made) is adopted if it is a copy of the same repository: its
// manifest and whitelist name `fqrn` and verify with the master keys. The
// whitelist may have expired (the next snapshot replaces it). The objects
// it holds are kept; the first snapshot copies only what is missing.
Status CheckAdoptable(cvmfs::ObjectStore* store, const std::string& where,
                      const std::string& fqrn,
                      const std::vector<cvmfs::PublicKey>& master_keys) {
  StoredChain chain(store);
  auto verified = cvmfs::VerifyTrustChain(&chain, master_keys, fqrn, /*now=*/0);
  if (!verified.ok())
    return Status::AlreadyExists(
        "storage " + where +
        " already holds a repository that is not a verifiable copy of " + fqrn +
        " (" + verified.status().ToString() + "); remove it first");
  return Status::Ok();
}

// Adopts what the storage of a new replica already holds (CheckAdoptable),
// if anything. On S3 this is also the first request to the bucket: wrong
// keys or an unreachable endpoint fail add-replica here.
Status CheckStorage(const ReplicaConfig& config,
                    const std::vector<cvmfs::PublicKey>& master_keys) {
  const std::string where =
      config.on_s3() ? "S3 " + config.s3_prefix + "@" + config.s3_config_file
                     : config.storage_dir;
  if (!config.on_s3() && !cvmfs::PathExists(config.storage_dir + "/" +
                                            std::string(cvmfs::kManifestName)))
    return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(auto store, OpenReplicaStore(config));
  auto manifest = store->Get(std::string(cvmfs::kManifestName));
  if (!manifest.ok() && manifest.status().IsNotFound()) return Status::Ok();
  if (!manifest.ok()) return manifest.status().Annotate(where);
  return CheckAdoptable(store.get(), where, config.fqrn, master_keys);
}

}  // namespace

Result<ReplicaConfig> AddReplica(const cvmfs::SystemPaths& paths,
                                 const AddReplicaOptions& options,
                                 cvmfs::Fetcher* fetcher) {
  if (::getpwnam(options.owner.c_str()) == nullptr)
    return Status::InvalidArgument("unknown user '" + options.owner + "' (-o)");
  CVMFS_ASSIGN_OR_RETURN(auto keys, PlanKeys(paths, options.public_key));
  std::vector<std::string> key_files;
  for (const auto& k : keys) key_files.push_back(k.from);
  CVMFS_ASSIGN_OR_RETURN(auto master_keys, cvmfs::LoadMasterKeys(key_files));

  CVMFS_RETURN_IF_ERROR(CheckReplicationAllowed(fetcher, options.stratum0_url));
  auto source = FetchVerifiedSource(fetcher, master_keys, "", ::time(nullptr));
  if (!source.ok()) return source.status().Annotate(options.stratum0_url);
  const std::string fqrn = source->whitelist.fqrn;
  const std::string name = options.alias.empty() ? fqrn : options.alias;
  CVMFS_RETURN_IF_ERROR(ValidateName(name));

  ReplicaConfig config = ReplicaConfig::ForNew(paths, name, fqrn);
  config.owner = options.owner;
  config.garbage_collection = options.garbage_collection;
  config.snapshot_group = options.snapshot_group;
  config.stratum0_url = options.stratum0_url;
  if (!options.s3_config_file.empty()) {
    CVMFS_ASSIGN_OR_RETURN(config.stratum1_url,
                           publisher::S3RepositoryUrl(options.stratum1_url,
                                                      name, "add-replica -s"));
    // Refuses a malformed file (unknown keys, ...) before anything is made.
    CVMFS_RETURN_IF_ERROR(
        publisher::S3Config::Load(options.s3_config_file).status());
    config.s3_config_file = options.s3_config_file;
    config.s3_prefix = name;
    config.storage_dir.clear();
  } else if (!options.stratum1_url.empty()) {
    config.stratum1_url = options.stratum1_url;
  }
  const std::string config_file = ReplicaConfig::ConfigFile(paths, name);
  if (cvmfs::PathExists(config_file))
    return Status::AlreadyExists(
        "repository " + name + " already exists here (" + config_file +
        "); choose another name with -n or remove it first");
  CVMFS_RETURN_IF_ERROR(CheckStorage(config, master_keys));

  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(paths.KeysDir()));
  for (auto& k : keys) {
    if (k.to.empty()) k.to = paths.KeysDir() + "/" + fqrn + ".pub";
    CVMFS_RETURN_IF_ERROR(InstallKey(k));
    config.public_keys.push_back(k.to);
  }
  CVMFS_RETURN_IF_ERROR(CreateStorage(config));
  CVMFS_RETURN_IF_ERROR(config.Save(paths));
  return config;
}

Result<std::unique_ptr<cvmfs::ObjectStore>> OpenReplicaStore(
    const ReplicaConfig& config) {
  if (config.on_s3())
    return publisher::OpenS3ObjectStore(config.s3_config_file, config.s3_prefix,
                                        /*peek_before_put=*/false);
  return std::unique_ptr<cvmfs::ObjectStore>(
      std::make_unique<cvmfs::LocalObjectStore>(config.storage_dir));
}

Result<std::unique_ptr<cvmfs::Fetcher>> MakeSourceFetcher(
    const std::string& stratum0_url, int timeout_s, int retries,
    int connections) {
  if (stratum0_url.rfind("http://", 0) != 0 &&
      stratum0_url.rfind("https://", 0) != 0)
    return Status::InvalidArgument("Stratum 0 URL '" + stratum0_url +
                                   "' must start with http:// or https://");
  cvmfs::HttpFetcherOptions o;
  std::string url = stratum0_url;
  while (url.size() > 8 && url.back() == '/') url.pop_back();
  o.hosts = {url};
  o.timeout_s = o.timeout_direct_s = timeout_s;
  o.max_retries = retries;
  o.backoff_init_ms = 500;
  o.max_connections = connections;
  o.user_agent = "cvmfs_server snapshot";
  CVMFS_ASSIGN_OR_RETURN(auto fetcher,
                         cvmfs::HttpFetcher::Create(std::move(o)));
  return std::unique_ptr<cvmfs::Fetcher>(std::move(fetcher));
}

Result<SnapshotLock> SnapshotLock::Acquire(const std::string& lock_file,
                                           const std::string& name) {
  cvmfs::UniqueFd fd(
      ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + lock_file);
  if (::flock(fd.get(), LOCK_EX | LOCK_NB) != 0) {
    if (errno == EWOULDBLOCK)
      return Status::Busy("another snapshot of " + name + " is running (lock " +
                          lock_file + ")");
    return Status::FromErrno(errno, "flock " + lock_file);
  }
  return SnapshotLock(std::move(fd));
}

Result<SnapshotLock> SnapshotLock::AcquireForReplica(
    const ReplicaConfig& config, const LockPolicy& policy) {
  const std::string lock_file = config.spool_dir + "/is_snapshotting.lock";
  auto lock = Acquire(lock_file, config.name);
  if (lock.ok() || lock.status().code() != Status::Code::kBusy ||
      policy.abort_on_conflict)
    return lock;
  auto store = OpenReplicaStore(config);
  if (store.ok() && !(*store)->Exists(kLastSnapshotName))
    return Status::Busy("another snapshot of " + config.name +
                        " is running, the initial one (lock " + lock_file +
                        ")");
  if (policy.on_wait) policy.on_wait();
  cvmfs::UniqueFd fd(
      ::open(lock_file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + lock_file);
  int rc;
  do {
    rc = ::flock(fd.get(), LOCK_EX);
  } while (rc != 0 && errno == EINTR);
  if (rc != 0) return Status::FromErrno(errno, "flock " + lock_file);
  return SnapshotLock(std::move(fd));
}

Result<SnapshotStats> SnapshotReplica(const ReplicaConfig& config,
                                      cvmfs::Fetcher* fetcher,
                                      const LockPolicy& policy,
                                      cvmfs::ProgressCounters* progress) {
  const std::string tmp_base = config.spool_dir + "/tmp";
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(tmp_base, 0700));
  CVMFS_ASSIGN_OR_RETURN(SnapshotLock lock,
                         SnapshotLock::AcquireForReplica(config, policy));
  // Under the lock nothing else writes here: what is left was interrupted.
  if (!config.on_s3()) {
    CVMFS_RETURN_IF_ERROR(EmptyDirectory(config.storage_dir + "/data/txn"));
    CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(config.storage_dir + "/data/txn"));
  }
  CVMFS_RETURN_IF_ERROR(EmptyDirectory(tmp_base));
  CVMFS_ASSIGN_OR_RETURN(auto keys, cvmfs::LoadMasterKeys(config.public_keys));
  std::unique_ptr<cvmfs::ObjectStore> s3_store;
  if (config.on_s3()) {
    CVMFS_ASSIGN_OR_RETURN(s3_store, OpenReplicaStore(config));
  }

  std::string temp_dir = tmp_base + "/snapshot.XXXXXX";
  if (!::mkdtemp(temp_dir.data()))
    return Status::FromErrno(errno, "mkdtemp " + temp_dir);
  SnapshotOptions options;
  options.fqrn = config.fqrn;
  options.storage_root = config.storage_dir;
  options.temp_dir = temp_dir;
  options.workers = config.num_workers;
  options.progress = progress;
  // On S3 a download waits in the snapshot's scratch directory until it
  // is uploaded.
  std::optional<StoreDestination> s3;
  if (s3_store) {
    options.destination = &s3.emplace(s3_store.get(), temp_dir);
    // A first snapshot (or the resumption of one) finds few objects there:
    // one listing instead of a HEAD per object.
    Status st = s3_store->Exists(std::string(cvmfs::kManifestName))
                    ? Status::Ok()
                    : s3->ListExisting();
    if (!st.ok()) {
      (void)cvmfs::RemoveTree(temp_dir);
      return st.Annotate("listing the replica's objects");
    }
  }
  auto stats = RunSnapshot(fetcher, keys, options);
  (void)cvmfs::RemoveTree(temp_dir);
  return stats;
}

}  // namespace replication
