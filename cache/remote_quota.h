// RemoteQuota: the QuotaBackend of a mount on a shared cache: the quota
// lives in the cache manager process (cache_manager.h), reached over
// <dir>/cachemgr (doc/format-cache-protocol.md) and started on demand.
//
// Files are used directly: Open() asks the manager to count the open
// first, then opens the file by name (so the manager never evicts it in
// between); Commit() has the object charged first, then renames the txn/
// file into place. Only the manager deletes objects.
//
// This process remembers every open and pin it holds. If the manager goes
// away (EOF, EPIPE: it crashed or was killed), the next request connects
// again (starting a new manager), re-registers them all ("restore") and is
// repeated once. Closes and unpins never start a manager: a new one only
// learns what is still held. While no manager can be reached, Open() still
// opens cached files (registered at the next connect); everything else
// fails with Unavailable.
//
// Thread safety: all methods may be called concurrently; requests are
// serialized over the one connection.
#ifndef CACHE_REMOTE_QUOTA_H_
#define CACHE_REMOTE_QUOTA_H_

#include <chrono>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "cache/cache_manager_launch.h"
#include "cache/quota_backend.h"
#include "cvmfs/mutex.h"

namespace cache {

namespace protocol {
class Request;
class Reply;
}  // namespace protocol

struct RemoteQuotaOptions {
  ManagerLaunch launch;
  std::string client_name;  // the repository, for the manager's log
};

class RemoteQuota : public QuotaBackend {
 public:
  // Connects (starting the manager if needed) and greets it. Unavailable if
  // no manager can be reached; NotSupported if it speaks another version.
  static cvmfs::Result<std::unique_ptr<RemoteQuota>> Connect(
      const RemoteQuotaOptions& options);
  ~RemoteQuota() override;

  bool managed() const override { return true; }
  cvmfs::Result<cvmfs::UniqueFd> Open(const cvmfs::Digest& id,
                                      Access access) override;
  void Close(const cvmfs::Digest& id) override;
  cvmfs::Result<uint64_t> MaxObjectSize() override;
  cvmfs::Status Commit(const cvmfs::Digest& id, uint64_t size, ObjectType type,
                       const std::string& description,
                       const std::string& temp_path, Access access) override;
  cvmfs::Status Pin(const cvmfs::Digest& id) override;
  cvmfs::Status Unpin(const cvmfs::Digest& id) override;
  bool Contains(const cvmfs::Digest& id) override;
  cvmfs::Status Evict(const cvmfs::Digest& id) override;
  cvmfs::Status Cleanup(uint64_t target_bytes) override;
  cvmfs::Status SetLimit(uint64_t bytes) override;
  std::vector<QuotaEntry> List(bool pinned_only) override;
  QuotaUsage usage() override;

  // The pid of the manager last greeted (0 if none); for tests and
  // `cvmfs_talk`.
  uint32_t manager_pid() const override;

 private:
  struct Holds {
    uint32_t opens = 0;
    uint32_t pins = 0;
  };

  explicit RemoteQuota(const RemoteQuotaOptions& options) : options_(options) {}

  // One request and its reply; on a lost connection connects again and
  // repeats it once. The transport's failure, or the reply's Status.
  cvmfs::Status Call(const protocol::Request& req, protocol::Reply* reply)
      REQUIRES(mu_);
  cvmfs::Status Exchange(const protocol::Request& req, protocol::Reply* reply)
      REQUIRES(mu_);
  cvmfs::Status EnsureConnected() REQUIRES(mu_);
  cvmfs::Status Greet() REQUIRES(mu_);
  cvmfs::Status RestoreHolds() REQUIRES(mu_);
  // Sends a close or unpin on the current connection, if there is one.
  cvmfs::Status Release(const protocol::Request& req) REQUIRES(mu_);
  void Count(const cvmfs::Digest& id, int opens, int pins) REQUIRES(mu_);

  const RemoteQuotaOptions options_;
  // Guards everything below; held for a whole request and reply. A leaf
  // lock.
  mutable cvmfs::Mutex mu_;
  cvmfs::UniqueFd conn_ GUARDED_BY(mu_);  // invalid while disconnected
  // After a failed connect, requests fail fast until then instead of
  // forking a manager for every open.
  std::chrono::steady_clock::time_point retry_after_ GUARDED_BY(mu_);
  cvmfs::Status last_error_ GUARDED_BY(mu_);
  uint32_t manager_pid_ GUARDED_BY(mu_) = 0;
  // Every open and pin of this process, registered or not.
  std::unordered_map<cvmfs::Digest, Holds, cvmfs::DigestHasher> held_
      GUARDED_BY(mu_);
};

}  // namespace cache

#endif  // CACHE_REMOTE_QUOTA_H_
