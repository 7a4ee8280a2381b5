// GatewayService: the repository gateway's HTTP API v1 (doc/gateway.md)
// over a transport-neutral request/reply, so it is tested without sockets;
// gateway_http.h serves it with libmicrohttpd.
//
//   request ─► route ─► HMAC check (key of the Authorization header) ─►
//   leases (LeaseTable) / payloads (object packs into the repository's
//   ObjectStore) / commit (one at a time per repository, CommitLease) /
//   notifications (latest announcement per repository) / admin gc (under
//   the commit lock and a lease on the whole repository)
//
// Side effects sit behind GatewayOptions: the clock, the token source, the
// repositories' object stores and the commit itself.
//
// Thread safety: Handle() may be called from many threads at once. Lock
// order: a repository's commit mutex, then LeaseTable's, then mu_.
#ifndef SERVER_GATEWAY_GATEWAY_SERVICE_H_
#define SERVER_GATEWAY_GATEWAY_SERVICE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"
#include "server/gateway/access_config.h"
#include "server/gateway/lease_commit.h"
#include "server/gateway/lease_table.h"
#include "server/gateway/notification_hub.h"
#include "server/gateway/repository_gc.h"

namespace gateway {

inline constexpr int kGatewayApiVersion = 3;
inline constexpr int kGatewayMinApiVersion = 2;

struct HttpRequest {
  std::string method;  // "GET", "POST", "DELETE"
  std::string path;    // "/api/v1/leases/<token>", percent-decoded
  std::map<std::string, std::string> headers;  // names lowercase
  std::map<std::string, std::string> query;
  std::string body;
};

struct HttpReply {
  int status = 200;
  std::string body;  // JSON
  // A stream instead of `body` (notifications/subscribe): each call blocks
  // until the next piece is ready and returns it; nullopt ends the stream.
  std::string content_type = "application/json";
  std::function<std::optional<std::string>()> stream;
};

struct GatewayOptions {
  AccessConfig access;
  const cvmfs::Clock* clock = nullptr;  // borrowed; SteadyClock() if null
  std::chrono::seconds max_lease_time{7200};
  // A subscriber's stream ends after this long without a message (CVMFS: 2 h).
  std::chrono::milliseconds notification_timeout{std::chrono::hours(2)};
  // Where leases outlive the process (borrowed; null: in memory only).
  LeaseStore* lease_store = nullptr;
  // A fresh unguessable lease token (default: 32 random bytes, base64).
  std::function<std::string()> new_token;
  // The storage of repository `fqrn` (borrowed; outlives the service).
  std::function<cvmfs::Result<cvmfs::ObjectStore*>(const std::string& fqrn)>
      store;
  // Publishes a leased change; returns the new revision.
  std::function<cvmfs::Result<uint64_t>(const LeaseCommitRequest&)> commit;
  // Admin gc: collects a repository's garbage, returns the report's text
  // (repository_gc.h). Null: gc requests answer an error.
  std::function<cvmfs::Result<std::string>(const RepositoryGcRequest&)> gc;
};

class GatewayService {
 public:
  explicit GatewayService(GatewayOptions options);
  HttpReply Handle(const HttpRequest& request);
  // Brings back the leases of GatewayOptions::lease_store (before serving).
  cvmfs::Status RestoreLeases() { return leases_.Restore(); }

  // Ends the notification streams (call before stopping the server).
  void Shutdown() { notifications_.Shutdown(); }

 private:
  HttpReply NewLease(const HttpRequest& r);
  HttpReply CommitLease(const HttpRequest& r, const std::string& token);
  HttpReply DropLease(const HttpRequest& r, const std::string& token);
  HttpReply GetLeases(const std::string& token);
  HttpReply Payload(const HttpRequest& r, const std::string& token);
  HttpReply Repos(const std::string& fqrn);
  HttpReply Publish(const HttpRequest& r);
  HttpReply Subscribe(const HttpRequest& r);
  HttpReply AdminDropByPath(const HttpRequest& r, const std::string& path);
  HttpReply AdminGc(const HttpRequest& r);
  HttpReply AdminSetRepoEnabled(const HttpRequest& r, const std::string& fqrn);
  bool RepoEnabled(const std::string& fqrn) EXCLUDES(mu_);
  // Checks the request's HMAC over `input`; fills `*key_id`. An error reply
  // (CVMFS's reason) if it fails; `admin` requires an admin key.
  std::optional<HttpReply> Authorize(const HttpRequest& r,
                                     std::string_view input, bool admin,
                                     std::string* key_id);
  // Grants `path` to `key_id` under a fresh token (`*token`); nullopt, or
  // the reply that refuses it (path_busy naming the holder).
  std::optional<HttpReply> GrantLease(const publisher::LeasePath& path,
                                      const std::string& key_id, bool durable,
                                      std::string* token);
  cvmfs::Mutex* CommitMutex(const std::string& fqrn);

  GatewayOptions options_;
  LeaseTable leases_;
  NotificationHub notifications_;
  cvmfs::Mutex mu_;  // guards commit_mutexes_, disabled_; leaf lock
  std::map<std::string, std::unique_ptr<cvmfs::Mutex>> commit_mutexes_
      GUARDED_BY(mu_);
  // Repositories an admin disabled (POST /repos/<fqrn>): no new lease, no
  // commit, until enabled again or the gateway restarts (as CVMFS's).
  std::set<std::string> disabled_ GUARDED_BY(mu_);
};

// 32 random bytes (OpenSSL's RAND_bytes), base64.
std::string RandomLeaseToken();

}  // namespace gateway

#endif  // SERVER_GATEWAY_GATEWAY_SERVICE_H_
