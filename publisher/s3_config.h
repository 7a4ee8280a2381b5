// S3Config: the S3 configuration file of CVMFS_UPSTREAM_STORAGE=S3,<tmp
// dir>,<prefix>@<config file> (and of `cvmfs_server mkfs -s <file>`), with
// CVMFS's key names (CVMFS_S3_HOST, CVMFS_S3_BUCKET, ...; doc/s3.md).
//
// Parsing refuses keys it does not know and keys CVMFS knows but we do not
// support (CVMFS_S3_FLAVOR=azure/awsv2, CVMFS_S3_X_AMZ_ACL, ...) by name,
// so a configuration never silently means something else here.
#ifndef PUBLISHER_S3_CONFIG_H_
#define PUBLISHER_S3_CONFIG_H_

#include <cstdint>
#include <string>

#include "cvmfs/status.h"
#include "publisher/server_config.h"

namespace publisher {

struct S3Config {
  std::string host;        // CVMFS_S3_HOST (required)
  uint16_t port = 80;      // CVMFS_S3_PORT
  std::string bucket;      // CVMFS_S3_BUCKET (required)
  std::string access_key;  // CVMFS_S3_ACCESS_KEY (required)
  std::string secret_key;  // CVMFS_S3_SECRET_KEY (required)
  // CVMFS_S3_DNS_BUCKETS: http://<bucket>.<host>/<key> (virtual-hosted
  // style, the default) or http://<host>/<bucket>/<key> (path style).
  bool dns_buckets = true;
  bool use_https = false;            // CVMFS_S3_USE_HTTPS
  std::string region = "us-east-1";  // CVMFS_S3_REGION (SigV4 scope)
  unsigned max_connections = 400;    // CVMFS_S3_MAX_NUMBER_OF_PARALLEL_...
  unsigned max_retries = 3;          // CVMFS_S3_MAX_RETRIES
  unsigned timeout_sec = 60;         // CVMFS_S3_TIMEOUT
  bool peek_before_put = true;       // CVMFS_S3_PEEK_BEFORE_PUT
  std::string proxy;                 // CVMFS_S3_PROXY ("" = direct)

  static cvmfs::Result<S3Config> Load(const std::string& path);
  static cvmfs::Result<S3Config> FromKeyValues(const KeyValueFile& kv);
  // The endpoint URL up to the bucket, no trailing slash: where objects
  // are <BucketUrl()>/<key>; also the stratum 0 URL's base for clients.
  std::string BucketUrl() const;
};

// The URL clients read the repository (or replica) `name` at, from the
// -w URL of `mkfs -s` / `add-replica -s`: CVMFS appends the name to it
// (http://s3.example.org/bucket -> http://s3.example.org/bucket/<name>).
// InvalidArgument, naming `option` (the command and its S3 option, e.g.
// "mkfs -s"), if `url` is empty or not http(s)://.
cvmfs::Result<std::string> S3RepositoryUrl(const std::string& url,
                                           const std::string& name,
                                           const std::string& option);

// CVMFS_UPSTREAM_STORAGE=S3,<tmp dir>,<prefix>@<config file>.
struct S3Upstream {
  std::string tmp_dir;
  std::string prefix;  // key prefix in the bucket, usually the fqrn
  std::string config_file;
};
// Parses the S3 form; InvalidArgument (naming the value) if malformed.
cvmfs::Result<S3Upstream> ParseS3Upstream(const std::string& upstream);

}  // namespace publisher

#endif  // PUBLISHER_S3_CONFIG_H_
