// GatewaySession: the lease a publisher machine's transaction holds on the
// repository gateway (doc/gateway.md, "Publisher machines"), kept as CVMFS
// keeps it: the session token alone in <spool>/session_token (mode 0600),
// from `cvmfs_server transaction FQRN[/PATH]` to its publish or abort. The
// requests are signed with the key file <keys dir>/<fqrn>.gw.
//
// Thread safety: none; one command at a time (under the repository lock).
#ifndef PUBLISHER_GATEWAY_SESSION_H_
#define PUBLISHER_GATEWAY_SESSION_H_

#include <string>

#include "cvmfs/status.h"
#include "publisher/gateway_client.h"
#include "publisher/server_config.h"
#include "publisher/spool_layout.h"

namespace publisher {

class GatewaySession {
 public:
  // For a repository with CVMFS_UPSTREAM_STORAGE=gw,...; reads its key.
  static cvmfs::Result<GatewaySession> For(const ServerConfig& config,
                                           const SpoolLayout& layout);

  // Leases `path` ("/" or "/a/b") of the repository and stores the token.
  // Busy, naming the holder, when the gateway refuses an overlapping path.
  cvmfs::Status Acquire(const std::string& path);
  // The stored token; NotFound when no lease is held.
  cvmfs::Result<std::string> Token() const;
  // Drops the lease on the gateway and forgets the token. A lease the
  // gateway no longer knows (expired, or ended by a commit) is no error:
  // `*note` then says so.
  cvmfs::Status Drop(std::string* note);
  // Forgets the token (after a commit, which ends the lease).
  cvmfs::Status Forget();

  GatewayClient* client() { return &client_; }
  // "<fqrn>/a/b" (or "<fqrn>/" for "/"), as the gateway names leases.
  std::string LeaseName(const std::string& path) const;

 private:
  GatewaySession(std::string fqrn, std::string token_file, GatewayClient client)
      : fqrn_(std::move(fqrn)),
        token_file_(std::move(token_file)),
        client_(std::move(client)) {}

  std::string fqrn_;
  std::string token_file_;
  GatewayClient client_;
};

}  // namespace publisher

#endif  // PUBLISHER_GATEWAY_SESSION_H_
