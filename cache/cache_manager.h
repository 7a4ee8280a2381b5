// CacheManager: the one process that keeps the quota of a shared cache
// directory (CVMFS_SHARED_CACHE=yes) for every mount on the node, serving
// them over <dir>/cachemgr (doc/format-cache-protocol.md).
//
// It owns the directory's QuotaStore (lock_cachedb, cachedb) and is the only
// process deleting objects. Opens and pins are counted per connection; a
// connection that closes, for whatever reason (unmount, client crash),
// gives back all of its opens and pins, so a dead client never keeps data
// locked and a live client's open files are never evicted.
//
// Run() is a single-threaded poll loop over the listening socket and the
// connections; every request is short (bookkeeping and a few unlinks). It
// returns once no client has been connected for `idle_grace` (taking
// lock_cachemgr so that no client connects meanwhile: see
// doc/format-cache-protocol.md, "2. Starting and stopping") or after Stop().
//
// Thread safety: Stop() may be called from any thread; everything else
// from the thread that runs Run().
#ifndef CACHE_CACHE_MANAGER_H_
#define CACHE_CACHE_MANAGER_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>

#include "cache/quota_store.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cache {

namespace protocol {
class Request;
class Reply;
}  // namespace protocol

struct CacheManagerOptions {
  std::string dir;          // the shared cache directory
  int64_t quota_limit = 0;  // bytes, positive
  // How long the manager waits for a client after the last one left (and
  // after start-up), so that a remount does not restart it.
  std::chrono::milliseconds idle_grace{5000};
  std::function<void(const std::string&)> log;  // may be empty
  // Becoming readable stops Run() like Stop() (a signalfd); -1 for none.
  // Borrowed; must outlive Run().
  int stop_fd = -1;
};

class CacheManager {
 public:
  // Takes over the quota (QuotaStore::Open: Busy if someone else owns it,
  // recovery of cachedb after a crash), deletes crashed clients' txn/
  // leftovers and listens on <dir>/cachemgr.
  static cvmfs::Result<std::unique_ptr<CacheManager>> Create(
      const CacheManagerOptions& options);
  // Removes the socket (if still there), writes cachedb, releases the
  // locks.
  ~CacheManager();
  CacheManager(const CacheManager&) = delete;
  CacheManager& operator=(const CacheManager&) = delete;

  cvmfs::Status Run();
  void Stop();

  const std::string& socket_path() const { return socket_path_; }

 private:
  struct Holds {
    uint32_t opens = 0;
    uint32_t pins = 0;
  };
  struct Client {
    cvmfs::UniqueFd fd;
    std::string inbox;  // bytes received, not yet a whole frame
    bool greeted = false;
    uint32_t pid = 0;
    std::string name;
    std::unordered_map<cvmfs::Digest, Holds, cvmfs::DigestHasher> held;
  };
  using Clock = std::chrono::steady_clock;

  explicit CacheManager(const CacheManagerOptions& options);
  void Log(const std::string& msg) const;
  int PollTimeoutMs(Clock::time_point idle_since) const;
  void AcceptAll();
  // Reads what arrived and answers complete requests; false once the
  // connection is to be closed.
  bool Serve(Client* c);
  bool Answer(Client* c, const std::string& payload);
  // Fills `reply`; false if the connection must be closed afterwards.
  bool Handle(Client* c, const protocol::Request& req, protocol::Reply* reply);
  bool Hello(Client* c, const protocol::Request& req, protocol::Reply* reply);
  cvmfs::Status Dispatch(Client* c, const protocol::Request& req,
                         protocol::Reply* reply);
  cvmfs::Status Insert(Client* c, const protocol::Request& req);
  cvmfs::Status Open(Client* c, const cvmfs::Digest& id, Access access);
  cvmfs::Status Close(Client* c, const cvmfs::Digest& id);
  cvmfs::Status Pin(Client* c, const cvmfs::Digest& id);
  cvmfs::Status Unpin(Client* c, const cvmfs::Digest& id);
  cvmfs::Status Restore(Client* c, const protocol::Request& req,
                        protocol::Reply* reply);
  // Gives back everything the client held.
  void Drop(Client* c);
  // With no clients: takes lock_cachemgr and stops listening unless a
  // connection is queued. True if the manager is to exit.
  bool TryShutdown();

  const CacheManagerOptions options_;
  const std::string socket_path_;
  std::unique_ptr<QuotaStore> store_;
  cvmfs::UniqueFd listen_fd_;
  cvmfs::UniqueFd stop_read_, stop_write_;  // Stop() wakes Run()
  cvmfs::UniqueFd exit_lock_;  // lock_cachemgr, held from shutdown to exit
  std::map<int, std::unique_ptr<Client>> clients_;  // by fd
};

}  // namespace cache

#endif  // CACHE_CACHE_MANAGER_H_
