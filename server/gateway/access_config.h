// AccessConfig: /etc/cvmfs/gateway/repo.json (doc/gateway.md, "Files"),
// which keys may lease which paths of which repositories, and
// GatewaySettings: /etc/cvmfs/gateway/user.json (port, max lease time).
// CVMFS's formats: repo.json version 1 and 2, plain-string repositories
// using /etc/cvmfs/keys/<fqrn>.gw.
//
// Parsed once at start into plain values; thread-safe to read.
#ifndef SERVER_GATEWAY_ACCESS_CONFIG_H_
#define SERVER_GATEWAY_ACCESS_CONFIG_H_

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "cvmfs/gateway_key.h"
#include "cvmfs/status.h"

namespace gateway {

struct RepositoryAccess {
  std::map<std::string, std::string> key_paths;  // key id -> subpath ("/a")
};

struct KeyAccess {
  std::string secret;
  bool admin = false;
};

struct AccessConfig {
  std::map<std::string, RepositoryAccess> repos;  // by fqrn
  std::map<std::string, KeyAccess> keys;          // by key id

  // Ok if `key_id` may lease `path` ("/a/b") of `fqrn`; otherwise
  // Permission with CVMFS's reason: invalid_repo, invalid_key, invalid_path.
  cvmfs::Status Check(const std::string& key_id, const std::string& fqrn,
                      const std::string& path) const;
};

// Reads a key file (ReadGatewayKey; injectable for tests).
using KeyFileReader =
    std::function<cvmfs::Result<cvmfs::GatewayKey>(const std::string& path)>;

// Parses repo.json's text. `keys_dir` is where plain-string repositories'
// <fqrn>.gw files are (/etc/cvmfs/keys).
cvmfs::Result<AccessConfig> ParseAccessConfig(const std::string& json,
                                              const std::string& keys_dir,
                                              const KeyFileReader& read_key);

struct GatewaySettings {
  int port = 4929;
  int64_t max_lease_time_s = 7200;
  std::string log_level = "info";
  std::string work_dir = "/var/lib/cvmfs-gateway";
};
// Parses user.json's text over the defaults (fe_tcp_port is read as port,
// as CVMFS does).
cvmfs::Result<GatewaySettings> ParseGatewaySettings(const std::string& json);

}  // namespace gateway

#endif  // SERVER_GATEWAY_ACCESS_CONFIG_H_
