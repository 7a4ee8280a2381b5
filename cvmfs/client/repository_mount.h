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
#ifndef CVMFS_CLIENT_REPOSITORY_MOUNT_H_
#define CVMFS_CLIENT_REPOSITORY_MOUNT_H_

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cache/posix_cache.h"
#include "cvmfs/catalog/history_db.h"
#include "cvmfs/client/file_system.h"
#include "cvmfs/client/object_fetcher.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

struct MountConfig {
  std::string fqrn;
  HttpFetcherOptions http;
  cache::CacheOptions cache;
  std::vector<std::string> public_key_files;
  std::string tag;                  // CVMFS_REPOSITORY_TAG
  std::optional<Digest> root_hash;  // CVMFS_ROOT_HASH
  FileSystemOptions fs;
};

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
  bool offline_start() const { return offline_start_; }

 private:
  class HttpView;
  RepositoryMount() = default;
  Result<MountedRevision> ChooseRevision(const std::function<void(const std::string&)>& log);
  Result<Tag> TagRoot(const Manifest& manifest);

  MountConfig config_;
  std::unique_ptr<cache::PosixCache> cache_;
  std::unique_ptr<Fetcher> fetcher_;
  HttpFetcher* http_ = nullptr;  // fetcher_ when it is the HTTP one
  std::unique_ptr<HttpView> view_;
  std::unique_ptr<ObjectFetcher> objects_;
  std::atomic<uint64_t> next_inode_{256};
  std::unique_ptr<FileSystem> fs_;
  bool offline_start_ = false;
};

}  // namespace cvmfs::client

#endif  // CVMFS_CLIENT_REPOSITORY_MOUNT_H_
