#include "publisher/server_config.h"

#include <thread>

#include "cvmfs/config/option_reader.h"
#include "cvmfs/config/options_manager.h"
#include "cvmfs/file_util.h"
#include "cvmfs/text.h"
#include "publisher/s3_config.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

Result<KeyValueFile> KeyValueFile::Load(const std::string& path) {
  auto text = cvmfs::ReadFile(path);
  if (!text.ok()) return text.status();
  return Parse(*text);
}

// Blanks and the CR of files written on Windows.
static std::string Trim(const std::string& s) {
  return std::string(cvmfs::Trim(s, " \t\r"));
}

KeyValueFile KeyValueFile::Parse(const std::string& text) {
  KeyValueFile kv;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string line = Trim(text.substr(
        pos, nl == std::string::npos ? std::string::npos : nl - pos));
    pos = nl == std::string::npos ? text.size() : nl + 1;
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("export ", 0) == 0) line = Trim(line.substr(7));
    size_t eq = line.find('=');
    if (eq == std::string::npos) continue;
    std::string key = Trim(line.substr(0, eq));
    std::string value = Trim(line.substr(eq + 1));
    if (value.size() >= 2 && (value[0] == '"' || value[0] == '\'') &&
        value.back() == value[0]) {
      value = value.substr(1, value.size() - 2);
    } else {
      size_t hash = value.find(" #");
      if (hash != std::string::npos) value = Trim(value.substr(0, hash));
    }
    kv.values_[key] = value;
  }
  return kv;
}

std::string KeyValueFile::Get(const std::string& key,
                              const std::string& def) const {
  auto it = values_.find(key);
  return it == values_.end() ? def : it->second;
}

std::string KeyValueFile::Serialize() const {
  std::string out;
  for (auto& [k, v] : values_) out += k + "=" + v + "\n";
  return out;
}

Result<bool> ParseBool(const std::string& key, const std::string& value) {
  std::optional<bool> parsed = cvmfs::ParseBoolean(value);
  if (!parsed)
    return Status::InvalidArgument(key + "=" + value + ": expected yes or no");
  return *parsed;
}

static Result<uint64_t> ParseUint(const std::string& key,
                                  const std::string& value) {
  std::optional<uint64_t> n = cvmfs::ParseUint64(value);
  if (!n)
    return Status::InvalidArgument(key + "=" + value +
                                   ": expected a non-negative integer");
  return *n;
}

Result<std::string> ParseGatewayUpstream(const std::string& upstream) {
  // gw,<tmp dir>,<URL>: the URL is everything after the second comma.
  size_t second = upstream.find(',', 3);
  std::string url =
      second == std::string::npos ? "" : upstream.substr(second + 1);
  while (!url.empty() && url.back() == '/') url.pop_back();
  if (url.rfind("http://", 0) != 0 && url.rfind("https://", 0) != 0)
    return Status::InvalidArgument(
        "CVMFS_UPSTREAM_STORAGE=" + upstream +
        ": expected gw,<tmp dir>,<gateway URL>, the URL as "
        "http://<host>:4929/api/v1");
  return url;
}

Result<ServerConfig> ServerConfig::FromKeyValues(const KeyValueFile& kv) {
  ServerConfig c;
  c.fqrn = kv.Get("CVMFS_REPOSITORY_NAME");
  if (c.fqrn.empty())
    return Status::InvalidArgument("CVMFS_REPOSITORY_NAME is not set");
  c.owner = kv.Get("CVMFS_USER", "root");
  c.stratum0_url = kv.Get("CVMFS_STRATUM0");
  c.spool_dir = kv.Get("CVMFS_SPOOL_DIR");
  c.keys_dir = kv.Get("CVMFS_KEYS_DIR");
  std::string upstream = kv.Get("CVMFS_UPSTREAM_STORAGE");
  if (upstream.rfind("S3,", 0) == 0) {
    auto s3 = ParseS3Upstream(upstream);
    if (!s3.ok()) return s3.status();
    c.s3_config_file = s3->config_file;
    c.s3_prefix = s3->prefix;
  } else if (upstream.rfind("gw,", 0) == 0) {
    auto gw = ParseGatewayUpstream(upstream);
    if (!gw.ok()) return gw.status();
    c.gateway_url = *gw;
    if (c.stratum0_url.empty())
      return Status::InvalidArgument(
          "CVMFS_STRATUM0 is not set: a publisher through a gateway reads "
          "the repository from its stratum 0 URL");
  } else if (upstream.rfind("local,", 0) != 0) {
    return Status::InvalidArgument("CVMFS_UPSTREAM_STORAGE=" + upstream +
                                   ": expected local,<tmp dir>,<storage dir>, "
                                   "S3,<tmp dir>,<prefix>@<S3 config file> or "
                                   "gw,<tmp dir>,<gateway URL>");
  } else {
    size_t second = upstream.find(',', 6);
    if (second == std::string::npos)
      return Status::InvalidArgument("CVMFS_UPSTREAM_STORAGE=" + upstream +
                                     ": expected local,<tmp>,<dir>");
    c.storage_dir = upstream.substr(second + 1);
  }

  auto algo = cvmfs::ParseAlgorithmName(kv.Get("CVMFS_HASH_ALGORITHM", "sha1"));
  if (!algo.ok()) return algo.status().Annotate("CVMFS_HASH_ALGORITHM");
  c.hash_algorithm = *algo;
  auto compr = cvmfs::ParseCompressionName(
      kv.Get("CVMFS_COMPRESSION_ALGORITHM", "default"));
  if (!compr.ok())
    return compr.status().Annotate("CVMFS_COMPRESSION_ALGORITHM");
  c.compression = *compr;

  struct BoolParam {
    const char* key;
    const char* def;
    bool* out;
  };
  for (auto& p :
       {BoolParam{"CVMFS_USE_FILE_CHUNKING", "true", &c.use_chunking},
        BoolParam{"CVMFS_GARBAGE_COLLECTION", "false", &c.garbage_collection},
        BoolParam{"CVMFS_AUTO_TAG", "true", &c.auto_tag},
        BoolParam{"CVMFS_INCLUDE_XATTRS", "true", &c.include_xattrs},
        BoolParam{"CVMFS_IGNORE_SPECIAL_FILES", "false",
                  &c.ignore_special_files},
        BoolParam{"CVMFS_EXTERNAL_DATA", "false", &c.external_data},
        BoolParam{"CVMFS_VIRTUAL_DIR", "false", &c.virtual_dir},
        BoolParam{"CVMFS_BUNDLES", "true", &c.bundles}}) {
    auto v = ParseBool(p.key, kv.Get(p.key, p.def));
    if (!v.ok()) return v.status();
    *p.out = *v;
  }
  struct UintParam {
    const char* key;
    uint64_t* out;
  };
  for (auto& p : {UintParam{"CVMFS_MIN_CHUNK_SIZE", &c.chunking.min_size},
                  UintParam{"CVMFS_AVG_CHUNK_SIZE", &c.chunking.avg_size},
                  UintParam{"CVMFS_MAX_CHUNK_SIZE", &c.chunking.max_size},
                  UintParam{"CVMFS_REPOSITORY_TTL", &c.ttl}}) {
    if (!kv.Has(p.key)) continue;
    auto v = ParseUint(p.key, kv.Get(p.key));
    if (!v.ok()) return v.status();
    *p.out = *v;
  }
  c.auto_tag_timespan = kv.Get("CVMFS_AUTO_TAG_TIMESPAN", "");
  if (kv.Has("CVMFS_NUM_WORKERS")) {
    auto v = ParseUint("CVMFS_NUM_WORKERS", kv.Get("CVMFS_NUM_WORKERS"));
    if (!v.ok()) return v.status();
    c.num_workers = static_cast<int>(*v);
  }
  if (c.use_chunking) {
    Status st = c.chunking.Validate();
    if (!st.ok()) return st.Annotate("CVMFS_{MIN,AVG,MAX}_CHUNK_SIZE");
  }
  return c;
}

KeyValueFile ServerConfig::ToKeyValues() const {
  KeyValueFile kv;
  kv.Set("CVMFS_REPOSITORY_NAME", fqrn);
  kv.Set("CVMFS_REPOSITORY_TYPE", "stratum0");
  kv.Set("CVMFS_USER", owner);
  kv.Set("CVMFS_STRATUM0", stratum0_url);
  kv.Set("CVMFS_SPOOL_DIR", spool_dir);
  kv.Set("CVMFS_KEYS_DIR", keys_dir);
  kv.Set("CVMFS_UPSTREAM_STORAGE",
         on_s3()
             ? "S3," + spool_dir + "/tmp," + s3_prefix + "@" + s3_config_file
         : on_gateway() ? "gw," + spool_dir + "/tmp," + gateway_url
                        : "local," + spool_dir + "/tmp," + storage_dir);
  kv.Set("CVMFS_HASH_ALGORITHM",
         std::string(cvmfs::AlgorithmName(hash_algorithm)));
  kv.Set("CVMFS_COMPRESSION_ALGORITHM",
         compression == cvmfs::Compression::kNone ? "none" : "default");
  kv.Set("CVMFS_USE_FILE_CHUNKING", use_chunking ? "true" : "false");
  kv.Set("CVMFS_MIN_CHUNK_SIZE", std::to_string(chunking.min_size));
  kv.Set("CVMFS_AVG_CHUNK_SIZE", std::to_string(chunking.avg_size));
  kv.Set("CVMFS_MAX_CHUNK_SIZE", std::to_string(chunking.max_size));
  kv.Set("CVMFS_GARBAGE_COLLECTION", garbage_collection ? "true" : "false");
  // As CVMFS's mkfs -z: a garbage-collectable repository collects by itself
  // after publishing (programs/cvmfs_server/auto_gc.h).
  if (garbage_collection) kv.Set("CVMFS_AUTO_GC", "true");
  kv.Set("CVMFS_AUTO_TAG", auto_tag ? "true" : "false");
  if (!auto_tag_timespan.empty())
    kv.Set("CVMFS_AUTO_TAG_TIMESPAN", auto_tag_timespan);
  kv.Set("CVMFS_REPOSITORY_TTL", std::to_string(ttl));
  kv.Set("CVMFS_INCLUDE_XATTRS", include_xattrs ? "true" : "false");
  kv.Set("CVMFS_IGNORE_SPECIAL_FILES", ignore_special_files ? "true" : "false");
  kv.Set("CVMFS_EXTERNAL_DATA", external_data ? "true" : "false");
  if (virtual_dir) kv.Set("CVMFS_VIRTUAL_DIR", "true");
  kv.Set("CVMFS_BUNDLES", bundles ? "true" : "false");
  return kv;
}

std::string ServerConfig::ConfigFile(const cvmfs::SystemPaths& paths) const {
  return paths.ServerConfigDir(fqrn) + "/server.conf";
}

Result<ServerConfig> ServerConfig::Load(const cvmfs::SystemPaths& paths,
                                        const std::string& fqrn) {
  // The name becomes a path: nothing outside the tree may be reached.
  if (!cvmfs::IsValidRepositoryName(fqrn) ||
      fqrn.find("..") != std::string::npos)
    return Status::InvalidArgument("'" + fqrn +
                                   "' is not a valid repository name");
  std::string file = paths.ServerConfigDir(fqrn) + "/server.conf";
  if (!cvmfs::PathExists(file))
    return Status::NotFound("repository " + fqrn + " does not exist here (no " +
                            file + ")");
  auto kv = KeyValueFile::Load(file);
  if (!kv.ok()) return kv.status();
  auto cfg = FromKeyValues(*kv);
  if (!cfg.ok()) return cfg.status().Annotate(file);
  if (cfg->num_workers <= 0)
    cfg->num_workers =
        static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  return cfg;
}

}  // namespace publisher
