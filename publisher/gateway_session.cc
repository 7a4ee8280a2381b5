#include "publisher/gateway_session.h"

#include <unistd.h>

#include <cerrno>

#include "cvmfs/file_util.h"
#include "cvmfs/gateway_key.h"
#include "cvmfs/text.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

Result<GatewaySession> GatewaySession::For(const ServerConfig& config,
                                           const SpoolLayout& layout) {
  if (!config.on_gateway())
    return Status::InvalidArgument(config.fqrn +
                                   " is not published through a gateway");
  const std::string key_file = config.keys_dir + "/" + config.fqrn + ".gw";
  auto key = cvmfs::ReadGatewayKey(key_file);
  if (!key.ok()) return key.status().Annotate("gateway key " + key_file);
  return GatewaySession(config.fqrn, layout.session_token,
                        GatewayClient(config.gateway_url, std::move(*key)));
}

std::string GatewaySession::LeaseName(const std::string& path) const {
  return fqrn_ + (path == "/" ? "/" : path);
}

Status GatewaySession::Acquire(const std::string& path) {
  CVMFS_ASSIGN_OR_RETURN(std::string token,
                         client_.AcquireLease(LeaseName(path)));
  Status stored = cvmfs::WriteFileAtomic(token_file_, token, 0600);
  if (stored.ok()) return stored;
  (void)client_.DropLease(token);
  return stored.Annotate("storing the session token");
}

Result<std::string> GatewaySession::Token() const {
  if (!cvmfs::PathExists(token_file_))
    return Status::NotFound("no gateway lease is held (no " + token_file_ +
                            ")");
  CVMFS_ASSIGN_OR_RETURN(std::string token, cvmfs::ReadFile(token_file_));
  token = std::string(cvmfs::Trim(token, " \t\r\n"));
  if (token.empty())
    return Status::Corruption(token_file_ + " holds no session token");
  return token;
}

Status GatewaySession::Drop(std::string* note) {
  note->clear();
  auto token = Token();
  if (!token.ok()) {
    if (token.status().IsNotFound()) return Status::Ok();
    return token.status();
  }
  Status dropped = client_.DropLease(*token);
  if (dropped.IsNotFound()) {
    *note = "the gateway no longer knew the lease (" + dropped.message() + ")";
  } else if (!dropped.ok()) {
    return dropped;
  }
  return Forget();
}

Status GatewaySession::Forget() {
  if (::unlink(token_file_.c_str()) != 0 && errno != ENOENT)
    return Status::FromErrno(errno, "remove " + token_file_);
  return Status::Ok();
}

}  // namespace publisher
