#include "server/replication/replica_config.h"

#include <map>

#include "cvmfs/config/shell_source.h"
#include "cvmfs/file_util.h"
#include "cvmfs/text.h"
#include "publisher/s3_config.h"

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

namespace {

// Single-quoted for the shell: safe for any path.
std::string ShellQuote(const std::string& value) {
  std::string out = "'";
  for (char c : value) {
    if (c == '\'')
      out += "'\\''";
    else
      out += c;
  }
  return out + "'";
}

Result<std::map<std::string, std::string>> SourceConfig(
    const std::string& file) {
  CVMFS_ASSIGN_OR_RETURN(std::string text, cvmfs::ReadFile(file));
  return cvmfs::SourceShellFile(file, cvmfs::AssignedParameters(text), {});
}

std::string Get(const std::map<std::string, std::string>& kv,
                const std::string& key, const std::string& def = "") {
  auto it = kv.find(key);
  return it == kv.end() || it->second.empty() ? def : it->second;
}

Status ParseInt(const std::map<std::string, std::string>& kv,
                const std::string& key, int min, int max,
                const std::string& file, int* out) {
  std::string value = Get(kv, key);
  if (value.empty()) return Status::Ok();
  std::optional<uint64_t> n = cvmfs::ParseUint64(value, 9);
  if (!n || static_cast<int64_t>(*n) < min || static_cast<int64_t>(*n) > max)
    return Status::InvalidArgument(
        file + ": " + key + "=" + value + ": expected a number from " +
        std::to_string(min) + " to " + std::to_string(max));
  *out = static_cast<int>(*n);
  return Status::Ok();
}

// The storage of CVMFS_UPSTREAM_STORAGE: local,<tmp>,<dir> or
// S3,<tmp>,<prefix>@<S3 config file>.
Status ParseUpstream(const std::string& upstream, const std::string& file,
                     ReplicaConfig* c) {
  if (upstream.rfind("S3,", 0) == 0) {
    auto s3 = publisher::ParseS3Upstream(upstream);
    if (!s3.ok()) return s3.status().Annotate(file);
    c->s3_config_file = s3->config_file;
    c->s3_prefix = s3->prefix;
    return Status::Ok();
  }
  size_t second = upstream.find(',', 6);
  if (upstream.rfind("local,", 0) != 0 || second == std::string::npos ||
      second + 1 == upstream.size())
    return Status::InvalidArgument(
        file + ": CVMFS_UPSTREAM_STORAGE=" + upstream +
        ": expected local,<tmp dir>,<storage dir> or "
        "S3,<tmp dir>,<prefix>@<S3 config file>");
  c->storage_dir = upstream.substr(second + 1);
  return Status::Ok();
}

}  // namespace

std::string ReplicaConfig::ConfigFile(const cvmfs::SystemPaths& paths,
                                      const std::string& name) {
  return paths.ServerConfigDir(name) + "/server.conf";
}

ReplicaConfig ReplicaConfig::ForNew(const cvmfs::SystemPaths& paths,
                                    const std::string& name,
                                    const std::string& fqrn) {
  ReplicaConfig c;
  c.name = name;
  c.fqrn = fqrn;
  c.storage_dir = paths.Storage(name);
  c.spool_dir = paths.Spool(name);
  return c;
}

Result<ReplicaConfig> ReplicaConfig::Load(const cvmfs::SystemPaths& paths,
                                          const std::string& name) {
  const std::string file = ConfigFile(paths, name);
  if (name.empty() || name.find('/') != std::string::npos ||
      !cvmfs::PathExists(file))
    return Status::NotFound("repository " + name + " does not exist here (no " +
                            file + ")");
  CVMFS_ASSIGN_OR_RETURN(auto kv, SourceConfig(file));
  std::string type = Get(kv, "CVMFS_REPOSITORY_TYPE", "stratum0");
  if (type != kReplicaType)
    return Status::InvalidArgument(name + " is a " + type +
                                   " repository, not a replica (" + file + ")");
  ReplicaConfig c;
  c.name = name;
  c.fqrn = Get(kv, "CVMFS_REPOSITORY_NAME");
  c.owner = Get(kv, "CVMFS_USER", "root");
  c.stratum0_url = Get(kv, "CVMFS_STRATUM0");
  c.public_keys = cvmfs::SplitNonEmpty(Get(kv, "CVMFS_PUBLIC_KEY"), ":");
  c.spool_dir = Get(kv, "CVMFS_SPOOL_DIR", paths.Spool(name));
  for (const char* key :
       {"CVMFS_REPOSITORY_NAME", "CVMFS_STRATUM0", "CVMFS_PUBLIC_KEY"}) {
    if (Get(kv, key).empty())
      return Status::InvalidArgument(file + ": " + key + " is not set");
  }
  CVMFS_RETURN_IF_ERROR(
      ParseUpstream(Get(kv, "CVMFS_UPSTREAM_STORAGE"), file, &c));
  c.stratum1_url = Get(kv, "CVMFS_STRATUM1");
  CVMFS_RETURN_IF_ERROR(
      ParseInt(kv, "CVMFS_HTTP_TIMEOUT", 1, 3600, file, &c.http_timeout_s));
  CVMFS_RETURN_IF_ERROR(
      ParseInt(kv, "CVMFS_HTTP_RETRIES", 0, 100, file, &c.http_retries));
  CVMFS_RETURN_IF_ERROR(
      ParseInt(kv, "CVMFS_NUM_WORKERS", 1, 1024, file, &c.num_workers));
  const std::string gc = Get(kv, "CVMFS_GARBAGE_COLLECTION", "false");
  if (gc != "true" && gc != "false")
    return Status::InvalidArgument(file +
                                   ": CVMFS_GARBAGE_COLLECTION must be true or "
                                   "false, not '" +
                                   gc + "'");
  c.garbage_collection = gc == "true";
  c.snapshot_group = Get(kv, "CVMFS_SNAPSHOT_GROUP");
  return c;
}

std::string ReplicaConfig::Serialize() const {
  std::string keys;
  for (const std::string& k : public_keys)
    keys += (keys.empty() ? "" : ":") + k;
  std::string out = "# created by cvmfs_server add-replica\n";
  auto line = [&out](const char* key, const std::string& value) {
    out += std::string(key) + "=" + ShellQuote(value) + "\n";
  };
  line("CVMFS_REPOSITORY_NAME", fqrn);
  line("CVMFS_REPOSITORY_TYPE", kReplicaType);
  line("CVMFS_USER", owner);
  line("CVMFS_SPOOL_DIR", spool_dir);
  line("CVMFS_STRATUM0", stratum0_url);
  if (!stratum1_url.empty()) line("CVMFS_STRATUM1", stratum1_url);
  line("CVMFS_UPSTREAM_STORAGE",
       on_s3() ? "S3," + spool_dir + "/tmp," + s3_prefix + "@" + s3_config_file
               : "local," + spool_dir + "/tmp," + storage_dir);
  line("CVMFS_PUBLIC_KEY", keys);
  line("CVMFS_HTTP_TIMEOUT", std::to_string(http_timeout_s));
  line("CVMFS_HTTP_RETRIES", std::to_string(http_retries));
  line("CVMFS_NUM_WORKERS", std::to_string(num_workers));
  if (garbage_collection) line("CVMFS_GARBAGE_COLLECTION", "true");
  if (!snapshot_group.empty()) line("CVMFS_SNAPSHOT_GROUP", snapshot_group);
  return out;
}

Status ReplicaConfig::Save(const cvmfs::SystemPaths& paths) const {
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(paths.ServerConfigDir(name)));
  return cvmfs::WriteFileAtomic(ConfigFile(paths, name), Serialize());
}

bool IsReplica(const cvmfs::SystemPaths& paths, const std::string& name) {
  auto kv = SourceConfig(ReplicaConfig::ConfigFile(paths, name));
  return kv.ok() && Get(*kv, "CVMFS_REPOSITORY_TYPE") == kReplicaType;
}

std::vector<std::string> ListReplicas(const cvmfs::SystemPaths& paths) {
  std::vector<std::string> out;
  auto names = cvmfs::ListDirectory(paths.RepositoriesD());
  if (!names.ok()) return out;
  for (const std::string& n : *names)
    if (IsReplica(paths, n)) out.push_back(n);
  return out;
}

}  // namespace replication
