#include "server/replication/replica_status.h"

#include <ctime>

#include "cvmfs/file_util.h"
#include "cvmfs/object_name.h"
#include "cvmfs/time_format.h"
#include "cvmfs/whitelist.h"
#include "server/replication/snapshot.h"

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

namespace {

std::string FormatUtc(int64_t t) {
  return cvmfs::FormatTime(t, cvmfs::kDateCommandUtcFormat,
                           cvmfs::TimeZone::kUtc);
}

// The file's content, or nullopt when it does not exist.
Result<std::optional<std::string>> ReadIfPresent(const std::string& file) {
  if (!cvmfs::PathExists(file)) return std::optional<std::string>();
  CVMFS_ASSIGN_OR_RETURN(std::string text, cvmfs::ReadFile(file));
  return std::optional<std::string>(std::move(text));
}

}  // namespace

Result<ReplicaStatus> LoadReplicaStatus(const cvmfs::SystemPaths& paths,
                                        const std::string& name) {
  ReplicaStatus s;
  CVMFS_ASSIGN_OR_RETURN(s.config, ReplicaConfig::Load(paths, name));
  const std::string& storage = s.config.storage_dir;
  CVMFS_ASSIGN_OR_RETURN(auto last,
                         ReadIfPresent(storage + "/" + kLastSnapshotName));
  if (last) s.last_snapshot = last->substr(0, last->find('\n'));
  const std::string manifest_file =
      storage + "/" + std::string(cvmfs::kManifestName);
  CVMFS_ASSIGN_OR_RETURN(auto manifest, ReadIfPresent(manifest_file));
  if (manifest) {
    auto parsed = cvmfs::Manifest::Parse(*manifest);
    if (!parsed.ok()) return parsed.status().Annotate(manifest_file);
    s.manifest = parsed->manifest;
  }
  CVMFS_ASSIGN_OR_RETURN(
      auto whitelist,
      ReadIfPresent(storage + "/" + std::string(cvmfs::kWhitelistName)));
  if (whitelist) {
    auto parsed = cvmfs::Whitelist::Parse(*whitelist);
    if (parsed.ok()) s.whitelist_expires = parsed->whitelist.expires;
  }
  return s;
}

std::string ReplicaListLine(const ReplicaStatus& s) {
  std::string line = s.config.name + " (" + kReplicaType + " / local)";
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
  line("Storage", s.config.storage_dir);
  line("Owner", s.config.owner);
  return out;
}

}  // namespace replication
