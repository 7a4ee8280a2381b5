// cvmfs_server add-replica and snapshot (server/replication/replica.h does
// the work):
//
//   add-replica [-o owner] [-n alias] STRATUM0_URL PUBKEY
//   snapshot [-a] [NAME]
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "server/apache_config.h"
#include "server/replication/replica.h"

namespace cvmfs_server {
namespace {

using cvmfs::Status;
using replication::SnapshotStats;

struct SnapshotArgs {
  bool all = false;  // -a
  std::string name;
};

void PrintStats(const std::string& name, const SnapshotStats& s) {
  double mb = s.bytes_copied / 1e6;
  std::printf(
      "%s: revision %llu (root catalog %s)%s\n", name.c_str(),
      static_cast<unsigned long long>(s.revision),
      s.root_catalog.ToString().c_str(),
      s.previous_revision == s.revision ? ", replica was up to date" : "");
  std::printf(
      "copied %llu objects (%.1f MB) in %.2f s, %.1f MB/s, %.0f objects/s; "
      "%llu catalogs copied, "
      "%llu catalogs skipped (present), %llu objects present, %zu tagged "
      "revisions\n",
      static_cast<unsigned long long>(s.objects_copied), mb, s.seconds,
      s.seconds > 0 ? mb / s.seconds : 0.0,
      s.seconds > 0 ? static_cast<double>(s.objects_copied) / s.seconds : 0.0,
      static_cast<unsigned long long>(s.catalogs_copied),
      static_cast<unsigned long long>(s.catalogs_skipped),
      static_cast<unsigned long long>(s.objects_present), s.tagged_roots);
}

// One replica's snapshot; returns the exit status.
int SnapshotOne(const cvmfs::SystemPaths& paths, const std::string& name) {
  auto config = replication::ReplicaConfig::Load(paths, name);
  if (!config.ok()) return FailMessage(config.status());
  auto fetcher = replication::MakeSourceFetcher(
      config->stratum0_url, config->http_timeout_s, config->http_retries,
      config->num_workers);
  if (!fetcher.ok()) return FailMessage(fetcher.status().Annotate(name));
  std::printf("%s: snapshot of %s from %s\n", name.c_str(),
              config->fqrn.c_str(), config->stratum0_url.c_str());
  std::fflush(stdout);
  auto stats = replication::SnapshotReplica(*config, fetcher->get());
  if (!stats.ok()) return FailMessage(stats.status());
  PrintStats(name, *stats);
  return 0;
}

int AddReplica(const cvmfs::SystemPaths& paths,
               const replication::AddReplicaOptions& options) {
  auto fetcher = replication::MakeSourceFetcher(options.stratum0_url, 10, 3, 4);
  if (!fetcher.ok()) return FailMessage(fetcher.status());
  auto config = replication::AddReplica(paths, options, fetcher->get());
  if (!config.ok()) return FailMessage(config.status());
  std::printf(
      "created replica %s of %s (storage %s); run cvmfs_server snapshot %s\n",
      config->name.c_str(), config->fqrn.c_str(), config->storage_dir.c_str(),
      config->name.c_str());
  // The same Apache snippet a Stratum 0 gets, for /cvmfs/<name>.
  auto apache = server::WriteApacheConfig(paths, config->name);
  if (!apache.ok())
    return FailMessage(apache.status().Annotate(
        "replica " + config->name +
        " was created, but its Apache configuration was not"));
  std::printf("Apache configuration: %s\n%s", apache->c_str(),
              server::ApacheEnableInstructions(*apache, config->name).c_str());
  return 0;
}

int Snapshot(const cvmfs::SystemPaths& paths, const SnapshotArgs& args) {
  if (args.all) {
    // One replica failing (or busy) does not stop the others.
    int rc = 0;
    for (const std::string& n : replication::ListReplicas(paths)) {
      int r = SnapshotOne(paths, n);
      if (r != 0) rc = r;
    }
    return rc;
  }
  std::string target = args.name;
  if (target.empty()) {
    auto replicas = replication::ListReplicas(paths);
    if (replicas.size() != 1)
      return FailMessage(
          Status::InvalidArgument("name the replica, or use -a (there is not "
                                  "exactly one replica here)"));
    target = replicas.front();
  }
  return SnapshotOne(paths, target);
}

}  // namespace

std::vector<Command> AddReplicaCommands(CLI::App& app, const Paths& paths) {
  auto options = std::make_shared<replication::AddReplicaOptions>();
  auto* add = app.add_subcommand("add-replica",
                                 "create a Stratum 1 replica of a repository");
  add->add_option("-o", options->owner, "owner of the replica's storage");
  add->add_option("-n", options->alias,
                  "name of the replica (default: the repository name)");
  add->add_option("stratum0_url", options->stratum0_url,
                  "URL of the source repository")
      ->required();
  add->add_option(
         "public_key", options->public_key,
         "master public key of the repository, or a directory of *.pub keys")
      ->required();

  auto args = std::make_shared<SnapshotArgs>();
  auto* snapshot = app.add_subcommand(
      "snapshot", "update a Stratum 1 replica from its source");
  snapshot->add_flag("-a", args->all, "update every replica on this machine");
  snapshot->add_option("name", args->name, "replica name");

  return {MakeCommand(add, paths, options, AddReplica),
          MakeCommand(snapshot, paths, args, Snapshot)};
}

}  // namespace cvmfs_server
