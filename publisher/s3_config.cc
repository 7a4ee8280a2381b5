#include "publisher/s3_config.h"

#include <charconv>
#include <set>
#include <utility>

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

Result<unsigned> ParseCount(const std::string& key, const std::string& value,
                            unsigned min, unsigned max) {
  unsigned n = 0;
  auto [end, ec] =
      std::from_chars(value.data(), value.data() + value.size(), n);
  if (ec != std::errc() || end != value.data() + value.size() || n < min ||
      n > max)
    return Status::InvalidArgument(
        key + "=" + value + ": expected an integer in [" + std::to_string(min) +
        ", " + std::to_string(max) + "]");
  return n;
}

// Keys CVMFS defines that we refuse, with the reason.
Status Unsupported(const std::string& key, const std::string& value) {
  return Status::NotSupported(key + "=" + value +
                              ": not supported by this publisher (doc/s3.md)");
}

}  // namespace

Result<S3Config> S3Config::Load(const std::string& path) {
  auto kv = KeyValueFile::Load(path);
  if (!kv.ok()) return kv.status().Annotate("S3 configuration " + path);
  auto config = FromKeyValues(*kv);
  if (!config.ok()) return config.status().Annotate(path);
  return config;
}

Result<S3Config> S3Config::FromKeyValues(const KeyValueFile& kv) {
  static const std::set<std::string> kKnown = {
      "CVMFS_S3_HOST",       "CVMFS_S3_PORT",
      "CVMFS_S3_BUCKET",     "CVMFS_S3_ACCESS_KEY",
      "CVMFS_S3_SECRET_KEY", "CVMFS_S3_DNS_BUCKETS",
      "CVMFS_S3_USE_HTTPS",  "CVMFS_S3_REGION",
      "CVMFS_S3_FLAVOR",     "CVMFS_S3_MAX_RETRIES",
      "CVMFS_S3_TIMEOUT",    "CVMFS_S3_PEEK_BEFORE_PUT",
      "CVMFS_S3_PROXY",      "CVMFS_S3_MAX_NUMBER_OF_PARALLEL_CONNECTIONS"};
  for (const auto& [key, value] : kv.values()) {
    if (key == "CVMFS_S3_X_AMZ_ACL") return Unsupported(key, value);
    if (kKnown.count(key) == 0)
      return Status::InvalidArgument(key + ": unknown S3 configuration key");
  }
  S3Config c;
  struct Required {
    const char* key;
    std::string* out;
  } required[] = {{"CVMFS_S3_HOST", &c.host},
                  {"CVMFS_S3_BUCKET", &c.bucket},
                  {"CVMFS_S3_ACCESS_KEY", &c.access_key},
                  {"CVMFS_S3_SECRET_KEY", &c.secret_key}};
  for (const Required& r : required) {
    *r.out = kv.Get(r.key);
    if (r.out->empty())
      return Status::InvalidArgument(std::string(r.key) + " is not set");
  }
  if (kv.Has("CVMFS_S3_PORT")) {
    auto port = ParseCount("CVMFS_S3_PORT", kv.Get("CVMFS_S3_PORT"), 1, 65535);
    if (!port.ok()) return port.status();
    c.port = static_cast<uint16_t>(*port);
  }
  struct BoolKey {
    const char* key;
    bool* out;
  } bools[] = {{"CVMFS_S3_DNS_BUCKETS", &c.dns_buckets},
               {"CVMFS_S3_USE_HTTPS", &c.use_https},
               {"CVMFS_S3_PEEK_BEFORE_PUT", &c.peek_before_put}};
  for (const BoolKey& b : bools) {
    if (!kv.Has(b.key)) continue;
    auto v = ParseBool(b.key, kv.Get(b.key));
    if (!v.ok()) return v.status();
    *b.out = *v;
  }
  struct CountKey {
    const char* key;
    unsigned* out;
    unsigned min, max;
  } counts[] = {{"CVMFS_S3_MAX_NUMBER_OF_PARALLEL_CONNECTIONS",
                 &c.max_connections, 1, 10000},
                {"CVMFS_S3_MAX_RETRIES", &c.max_retries, 0, 100},
                {"CVMFS_S3_TIMEOUT", &c.timeout_sec, 1, 86400}};
  for (const CountKey& k : counts) {
    if (!kv.Has(k.key)) continue;
    auto v = ParseCount(k.key, kv.Get(k.key), k.min, k.max);
    if (!v.ok()) return v.status();
    *k.out = *v;
  }
  if (kv.Has("CVMFS_S3_REGION")) c.region = kv.Get("CVMFS_S3_REGION");
  if (c.region.empty())
    return Status::InvalidArgument("CVMFS_S3_REGION is empty");
  // Requests are signed with AWS Signature V4 only (libcurl's).
  std::string flavor = kv.Get("CVMFS_S3_FLAVOR", "awsv4");
  if (flavor != "awsv4") return Unsupported("CVMFS_S3_FLAVOR", flavor);
  c.proxy = kv.Get("CVMFS_S3_PROXY");
  return c;
}

std::string S3Config::BucketUrl() const {
  std::string scheme = use_https ? "https://" : "http://";
  std::string host_port = host + ":" + std::to_string(port);
  if (dns_buckets) return scheme + bucket + "." + host_port;
  return scheme + host_port + "/" + bucket;
}

Result<std::string> S3RepositoryUrl(const std::string& url,
                                    const std::string& name,
                                    const std::string& option) {
  if (url.empty())
    return Status::InvalidArgument(
        option +
        " needs -w <URL>: where clients read the bucket over HTTP "
        "(the repository name is appended)");
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return Status::InvalidArgument("-w " + url +
                                   ": expected an http:// or https:// URL");
  std::string base = url;
  while (!base.empty() && base.back() == '/') base.pop_back();
  return base + "/" + name;
}

Result<S3Upstream> ParseS3Upstream(const std::string& upstream) {
  auto bad = [&upstream](const std::string& why) {
    return Status::InvalidArgument("CVMFS_UPSTREAM_STORAGE=" + upstream + ": " +
                                   why);
  };
  if (upstream.rfind("S3,", 0) != 0)
    return bad("expected S3,<tmp>,<prefix>@<file>");
  size_t comma = upstream.find(',', 3);
  if (comma == std::string::npos)
    return bad("expected S3,<tmp>,<prefix>@<file>");
  size_t at = upstream.find('@', comma + 1);
  if (at == std::string::npos) return bad("expected <prefix>@<S3 config file>");
  S3Upstream u;
  u.tmp_dir = upstream.substr(3, comma - 3);
  u.prefix = upstream.substr(comma + 1, at - comma - 1);
  u.config_file = upstream.substr(at + 1);
  if (u.tmp_dir.empty() || u.config_file.empty())
    return bad("empty tmp dir or S3 config file");
  if (u.prefix.find("..") != std::string::npos || u.prefix.rfind('/', 0) == 0)
    return bad("the prefix must be a relative key prefix");
  return u;
}

}  // namespace publisher
