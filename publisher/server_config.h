// The server configuration of one repository:
// etc/cvmfs/repositories.d/<fqrn>/server.conf, in CVMFS's KEY=VALUE shell
// syntax, with the parameter names CVMFS administrators know.
//
// Only plain assignments are understood (optionally quoted, `#` comments);
// the file is written by `cvmfs_server mkfs` and may be edited by hand.
#ifndef PUBLISHER_SERVER_CONFIG_H_
#define PUBLISHER_SERVER_CONFIG_H_

#include <map>
#include <string>

#include "cvmfs/chunker.h"
#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace publisher {

// Raw KEY=VALUE pairs of a shell-style configuration file.
class KeyValueFile {
 public:
  static cvmfs::Result<KeyValueFile> Load(const std::string& path);
  static KeyValueFile Parse(const std::string& text);
  bool Has(const std::string& key) const { return values_.count(key) > 0; }
  std::string Get(const std::string& key, const std::string& def = "") const;
  void Set(const std::string& key, const std::string& value) {
    values_[key] = value;
  }
  const std::map<std::string, std::string>& values() const { return values_; }
  std::string Serialize() const;

 private:
  std::map<std::string, std::string> values_;
};

// The parsed, validated parameters a publish needs.
struct ServerConfig {
  std::string fqrn;
  std::string owner = "root";
  std::string stratum0_url;  // CVMFS_STRATUM0
  std::string storage_dir;   // from CVMFS_UPSTREAM_STORAGE=local,<tmp>,<dir>
  // CVMFS_UPSTREAM_STORAGE=S3,<tmp>,<prefix>@<file> (doc/s3.md): the S3
  // configuration file and the key prefix; storage_dir is then empty.
  std::string s3_config_file;
  std::string s3_prefix;
  bool on_s3() const { return !s3_config_file.empty(); }
  // CVMFS_UPSTREAM_STORAGE=gw,<tmp>,<gateway API URL> (doc/gateway.md,
  // "Publisher machines"): a publisher machine of a repository the
  // gateway stores. It reads the repository from stratum0_url and sends its
  // changes to the gateway; storage_dir is empty.
  std::string gateway_url;
  bool on_gateway() const { return !gateway_url.empty(); }
  std::string spool_dir;  // CVMFS_SPOOL_DIR
  std::string keys_dir;   // where <fqrn>.key/.crt/.pub live
  cvmfs::HashAlgorithm hash_algorithm = cvmfs::HashAlgorithm::kSha1;
  cvmfs::Compression compression = cvmfs::Compression::kZlib;
  bool use_chunking = true;
  cvmfs::ChunkingParams chunking;
  bool garbage_collection = false;
  bool auto_tag = true;
  // CVMFS_AUTO_TAG_TIMESPAN: auto tags older than this are removed on
  // publish (publisher/auto_tags.h); empty: kept forever.
  std::string auto_tag_timespan;
  uint64_t ttl = 240;
  bool include_xattrs = true;
  bool ignore_special_files = false;
  // CVMFS_EXTERNAL_DATA (mkfs -X): new files are published as external
  // (publisher/upper_applier.h).
  bool external_data = false;
  // CVMFS_VIRTUAL_DIR: every publish maintains /.cvmfs/snapshots/<tag>
  // (publisher/virtual_dir.h); turned off, the next publish removes it.
  bool virtual_dir = false;
  // CVMFS_BUNDLES (ours): a publish writes the bundles of small files of
  // the directories it changes (doc/format-bundles.md,
  // publisher/bundle_writer.h); false: changed directories lose theirs.
  bool bundles = true;
  int num_workers = 0;  // 0: one per core

  static cvmfs::Result<ServerConfig> Load(const cvmfs::SystemPaths& paths,
                                          const std::string& fqrn);
  static cvmfs::Result<ServerConfig> FromKeyValues(const KeyValueFile& kv);
  KeyValueFile ToKeyValues() const;
  std::string ConfigFile(const cvmfs::SystemPaths& paths) const;
};

// The gateway's API URL of CVMFS_UPSTREAM_STORAGE=gw,<tmp>,<URL> (no
// trailing '/'); InvalidArgument unless it is an http(s) URL.
cvmfs::Result<std::string> ParseGatewayUpstream(const std::string& upstream);

// Parses yes/no, true/false, on/off, 1/0.
cvmfs::Result<bool> ParseBool(const std::string& key, const std::string& value);

}  // namespace publisher

#endif  // PUBLISHER_SERVER_CONFIG_H_
