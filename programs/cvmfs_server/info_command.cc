// `cvmfs_server info [FQRN]`: what a repository is (name, revision,
// whitelist expiry, hash and compression, storage); for a Stratum 1
// replica, its replication status (replica_status.h).
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "publisher/repository.h"
#include "server/replication/replica_status.h"

namespace cvmfs_server {
namespace {

void PrintInfo(publisher::Repository& repo, const cvmfs::Manifest& m) {
  auto wl = repo.CurrentWhitelist();
  std::printf("Repository name: %s\n", m.fqrn.c_str());
  std::printf("Created by our cvmfs_server (CernVM-FS 2.12 compatible)\n");
  std::printf("Stratum1 Replication Allowed: %s\n",
              repo.store()->Exists(".cvmfs_master_replica") ? "yes" : "no");
  std::printf("Whitelist expires: %s\n",
              wl.ok() ? FormatLocalTime(wl->whitelist.expires).c_str()
                      : wl.status().ToString().c_str());
  std::printf("Revision: %llu\n", static_cast<unsigned long long>(m.revision));
  std::printf(
      "Published: %s\n",
      m.publish_timestamp
          ? FormatLocalTime(static_cast<int64_t>(*m.publish_timestamp)).c_str()
          : "-");
  std::printf("Root catalog: %s (%llu bytes)\n",
              m.root_catalog.ToString().c_str(),
              static_cast<unsigned long long>(m.catalog_size));
  std::printf(
      "Hash algorithm: %s\nCompression: %s\n",
      std::string(cvmfs::AlgorithmName(repo.config().hash_algorithm)).c_str(),
      std::string(cvmfs::CompressionName(repo.config().compression)).c_str());
  std::printf("Garbage collectable: %s\nCatalog TTL: %llu s\n",
              m.garbage_collectable ? "yes" : "no",
              static_cast<unsigned long long>(m.ttl));
  std::printf("Storage: %s\nStratum0 URL: %s\n",
              repo.config().storage_dir.c_str(),
              repo.config().stratum0_url.c_str());
}

int RunInfo(const cvmfs::SystemPaths& paths, const std::string& given) {
  auto fqrn = ResolveFqrn(paths, given);
  if (!fqrn.ok()) return FailMessage(fqrn.status());
  if (replication::IsReplica(paths, *fqrn)) {
    auto replica = replication::LoadReplicaStatus(paths, *fqrn);
    if (!replica.ok()) return FailMessage(replica.status());
    std::printf("%s", replication::ReplicaInfoText(*replica).c_str());
    return 0;
  }
  auto repo = publisher::Repository::Open(paths, *fqrn);
  if (!repo.ok()) return FailMessage(repo.status());
  auto manifest = (*repo)->CurrentManifest();
  if (!manifest.ok()) return FailMessage(manifest.status());
  PrintInfo(**repo, manifest->manifest);
  return 0;
}

}  // namespace

std::vector<Command> AddInfoCommand(CLI::App& app, const Paths& paths) {
  auto fqrn = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("info", "show repository information");
  cmd->add_option("fqrn", *fqrn, "repository name");
  return {MakeCommand(cmd, paths, fqrn, RunInfo)};
}

}  // namespace cvmfs_server
