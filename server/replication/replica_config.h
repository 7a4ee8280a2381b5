// ReplicaConfig: the configuration of one Stratum 1 replica,
// etc/cvmfs/repositories.d/<name>/server.conf, with the parameter names
// CVMFS's `cvmfs_server add-replica` writes:
//
//   CVMFS_REPOSITORY_NAME=<fqrn>         from the source's signed whitelist
//   CVMFS_REPOSITORY_TYPE=stratum1       (stratum0 for a publisher's
//   repository) CVMFS_USER=<owner> CVMFS_SPOOL_DIR=var/spool/cvmfs/<name>
//   CVMFS_STRATUM0=<source url>
//   CVMFS_UPSTREAM_STORAGE=local,<spool>/tmp,<storage>   storage:
//   srv/cvmfs/<name> CVMFS_PUBLIC_KEY=<key>[:<key>...]    master public keys,
//   in etc/cvmfs/keys CVMFS_HTTP_TIMEOUT=10  CVMFS_HTTP_RETRIES=3
//   CVMFS_NUM_WORKERS=16
//
// A replica on S3 (add-replica -s <S3 config> -w <URL>; doc/s3.md) has
//   CVMFS_UPSTREAM_STORAGE=S3,<spool>/tmp,<name>@<S3 config file>
//   CVMFS_STRATUM1=<URL>/<name>          where clients read it
// and no storage directory.
//
// <name> is the alias given to add-replica (-n) or else the fqrn, so that one
// machine can hold replicas of two sources that serve the same repository.
// The file is shell code like every CVMFS configuration file and is read by
// sourcing it (cvmfs/config/shell_source.h).
//
// Thread safety: a plain value.
#ifndef SERVER_REPLICATION_REPLICA_CONFIG_H_
#define SERVER_REPLICATION_REPLICA_CONFIG_H_

#include <string>
#include <vector>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace replication {

// CVMFS_REPOSITORY_TYPE of a replica.
inline constexpr char kReplicaType[] = "stratum1";

struct ReplicaConfig {
  std::string name;  // directory under repositories.d: the alias or the fqrn
  std::string fqrn;
  std::string owner = "root";
  std::string stratum0_url;
  std::vector<std::string> public_keys;  // files
  std::string storage_dir;               // "" on S3
  std::string spool_dir;
  // On S3: the S3 configuration file and the key prefix in its bucket.
  std::string s3_config_file;
  std::string s3_prefix;
  std::string stratum1_url;  // CVMFS_STRATUM1 (written for S3 replicas)
  int http_timeout_s = 10;
  int http_retries = 3;
  int num_workers = 16;  // parallel downloads
  // CVMFS_GARBAGE_COLLECTION (add-replica -z): `gc` may collect the replica.
  bool garbage_collection = false;
  // CVMFS_SNAPSHOT_GROUP (add-replica -g): `snapshot -a -g GROUP` takes only
  // the replicas of GROUP, plain `snapshot -a` only those without a group.
  std::string snapshot_group;

  bool on_s3() const { return !s3_config_file.empty(); }

  // Defaults for a new replica called `name` under `paths`.
  static ReplicaConfig ForNew(const cvmfs::SystemPaths& paths,
                              const std::string& name, const std::string& fqrn);
  // NotFound if there is no such repository, InvalidArgument if it is not a
  // replica or a value is malformed (naming the file and the parameter).
  static cvmfs::Result<ReplicaConfig> Load(const cvmfs::SystemPaths& paths,
                                           const std::string& name);
  // Writes server.conf atomically (its directory is created).
  cvmfs::Status Save(const cvmfs::SystemPaths& paths) const;
  std::string Serialize() const;
  static std::string ConfigFile(const cvmfs::SystemPaths& paths,
                                const std::string& name);
};

// True if repositories.d/<name>/server.conf names a Stratum 1 replica.
bool IsReplica(const cvmfs::SystemPaths& paths, const std::string& name);

// The names of all replicas on this machine, sorted.
std::vector<std::string> ListReplicas(const cvmfs::SystemPaths& paths);

}  // namespace replication

#endif  // SERVER_REPLICATION_REPLICA_CONFIG_H_
