#include "server/replication/replica_status.h"

#include <ctime>

#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/time_format.h"
#include "cvmfs/whitelist.h"
#include "server/replication/replica.h"
#include "server/replication/snapshot.h"

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

namespace {

std::string FormatUtc(int64_t t) {
  return cvmfs::FormatTime(t, cvmfs::kDateCommandUtcFormat,
                           cvmfs::TimeZone::kUtc);
}

// The stored file `name`, or nullopt when it does not exist.
Result<std::optional<std::string>> ReadIfPresent(cvmfs::ObjectStore* store,
                                                 const std::string& name) {
  auto text = store->Get(name);
  if (!text.ok() && text.status().IsNotFound())
    return std::optional<std::string>();
  if (!text.ok()) return text.status();
  return std::optional<std::string>(std::move(text).value());
}

}  // namespace

Result<ReplicaStatus> LoadReplicaStatus(const cvmfs::SystemPaths& paths,
                                        const std::string& name) {
  ReplicaStatus s;
  CVMFS_ASSIGN_OR_RETURN(s.config, ReplicaConfig::Load(paths, name));
  CVMFS_ASSIGN_OR_RETURN(auto store, OpenReplicaStore(s.config));
  CVMFS_ASSIGN_OR_RETURN(auto last,
                         ReadIfPresent(store.get(), kLastSnapshotName));
  if (last) s.last_snapshot = last->substr(0, last->find('\n'));
  const std::string manifest_name(cvmfs::kManifestName);
  CVMFS_ASSIGN_OR_RETURN(auto manifest,
                         ReadIfPresent(store.get(), manifest_name));
  if (manifest) {
    auto parsed = cvmfs::Manifest::Parse(*manifest);
    if (!parsed.ok())
      return parsed.status().Annotate(
          s.config.on_s3() ? "S3 " + s.config.s3_prefix + "/" + manifest_name
                           : s.config.storage_dir + "/" + manifest_name);
    s.manifest = parsed->manifest;
  }
  CVMFS_ASSIGN_OR_RETURN(
      auto whitelist,
      ReadIfPresent(store.get(), std::string(cvmfs::kWhitelistName)));
  if (whitelist) {
    auto parsed = cvmfs::Whitelist::Parse(*whitelist);
    if (parsed.ok()) s.whitelist_expires = parsed->whitelist.expires;
  }
  return s;
}

std::string ReplicaListLine(const ReplicaStatus& s) {
  std::string line = s.config.name + " (" + kReplicaType + " / " +
                     (s.config.on_s3() ? "S3" : "local") + ")";
  if (s.config.fqrn != s.config.name) line += " -> " + s.config.fqrn;
  return line;
}

std::string ReplicaInfoText(const ReplicaStatus& s) {
  std::string out;
  auto line = [&out](const std::string& key, const std::string& value) {
    out += key + ": " + value + "\n";
  };
  line("Repository name", s.config.fqrn);
  if (s.config.name != s.config.fqrn) line("Replica alias", s.config.name);
  line("Type", "Stratum 1 replica (stratum1)");
  line("Upstream (Stratum 0) URL", s.config.stratum0_url);
  line("Last snapshot",
       s.last_snapshot.value_or("never (run cvmfs_server snapshot " +
                                s.config.name + ")"));
  if (s.manifest) {
    line("Revision", std::to_string(s.manifest->revision));
    line("Published",
         s.manifest->publish_timestamp
             ? FormatUtc(static_cast<int64_t>(*s.manifest->publish_timestamp))
             : "-");
    line("Root catalog", s.manifest->root_catalog.ToString());
  } else {
    line("Revision", "none: no snapshot yet");
  }
  if (s.whitelist_expires)
    line("Whitelist expires", FormatUtc(*s.whitelist_expires));
  line("Storage", s.config.on_s3() ? "S3 " + s.config.s3_prefix + "@" +
                                         s.config.s3_config_file
                                   : s.config.storage_dir);
  if (!s.config.stratum1_url.empty())
    line("Stratum 1 URL", s.config.stratum1_url);
  line("Owner", s.config.owner);
  return out;
}

}  // namespace replication
