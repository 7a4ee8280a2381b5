// GatewayClient: the publisher's side of the repository gateway's HTTP API
// v1 (doc/gateway.md): lease a subtree, send object packs under the lease,
// commit or drop it. Requests are signed with the publisher's gateway key
// (cvmfs/gateway_key.h), as CVMFS's publisher signs them.
//
// Errors: Busy for a leased path, NotFound when the gateway no longer knows
// the lease (reason invalid_token or lease_expired: it expired, or was
// committed or dropped), Unavailable when it cannot be reached,
// InvalidArgument with the gateway's reason otherwise.
//
// Thread safety: one thread per client (each request uses its own libcurl
// handle, so separate clients may run in parallel).
#ifndef PUBLISHER_GATEWAY_CLIENT_H_
#define PUBLISHER_GATEWAY_CLIENT_H_

#include <cstdint>
#include <string>

#include "cvmfs/gateway_key.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_pack.h"
#include "cvmfs/status.h"

namespace publisher {

class GatewayClient {
 public:
  // `api_url`: "http://host:4929/api/v1" (the gateway URL of mkfs -u gw,...).
  GatewayClient(std::string api_url, cvmfs::GatewayKey key)
      : api_url_(std::move(api_url)), key_(std::move(key)) {}

  // Leases "<fqrn>/<subpath>"; returns the session token. Busy, naming the
  // holder and the time left, when the path is leased by someone else.
  cvmfs::Result<std::string> AcquireLease(const std::string& lease_path);
  // Sends one pack under the lease; its header digest uses `algorithm`.
  cvmfs::Status SubmitPack(const std::string& token,
                           const cvmfs::ObjectPackBuilder& pack,
                           cvmfs::HashAlgorithm algorithm);
  // Commits the change from `old_root` to `new_root`; returns the revision.
  cvmfs::Result<uint64_t> Commit(const std::string& token,
                                 const cvmfs::Digest& old_root,
                                 const cvmfs::Digest& new_root,
                                 const std::string& tag_name,
                                 const std::string& tag_description);
  cvmfs::Status DropLease(const std::string& token);

 private:
  // Sends the request; returns the answer's body. `hmac_input` is signed.
  cvmfs::Result<std::string> Request(const std::string& method,
                                     const std::string& path,
                                     const std::string& body,
                                     const std::string& hmac_input,
                                     const std::string& extra_header);

  std::string api_url_;
  cvmfs::GatewayKey key_;
};

}  // namespace publisher

#endif  // PUBLISHER_GATEWAY_CLIENT_H_
