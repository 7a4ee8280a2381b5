#include "programs/cvmfs_server/replica_command.h"

#include <cstdio>
#include <memory>
#include <string>

#include "server/apache_config.h"
#include "server/replication/replica.h"

namespace replication {

using cvmfs::Status;

namespace {

// The exit status of a failure, after saying what went wrong (same form
// and codes as the publisher's commands: 2 for a usage error).
int Failure(const Status& st) {
  std::fprintf(stderr, "cvmfs_server: %s\n", st.ToString().c_str());
  return st.code() == Status::Code::kInvalidArgument ? 2 : 1;
}

[[noreturn]] void EndWith(int code) { throw CLI::RuntimeError(code); }

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
  auto config = ReplicaConfig::Load(paths, name);
  if (!config.ok()) return Failure(config.status());
  auto fetcher = MakeSourceFetcher(config->stratum0_url, config->http_timeout_s,
                                   config->http_retries, config->num_workers);
  if (!fetcher.ok()) return Failure(fetcher.status().Annotate(name));
  std::printf("%s: snapshot of %s from %s\n", name.c_str(),
              config->fqrn.c_str(), config->stratum0_url.c_str());
  std::fflush(stdout);
  auto stats = SnapshotReplica(*config, fetcher->get());
  if (!stats.ok()) return Failure(stats.status());
  PrintStats(name, *stats);
  return 0;
}

}  // namespace

void AddAddReplicaCommand(CLI::App& app, const cvmfs::SystemPaths& paths) {
  auto options = std::make_shared<AddReplicaOptions>();
  auto* cmd = app.add_subcommand("add-replica",
                                 "create a Stratum 1 replica of a repository");
  cmd->add_option("-o", options->owner, "owner of the replica's storage");
  cmd->add_option("-n", options->alias,
                  "name of the replica (default: the repository name)");
  cmd->add_option("stratum0_url", options->stratum0_url,
                  "URL of the source repository")
      ->required();
  cmd->add_option(
         "public_key", options->public_key,
         "master public key of the repository, or a directory of *.pub keys")
      ->required();
  cmd->callback([options, &paths] {
    auto fetcher = MakeSourceFetcher(options->stratum0_url, 10, 3, 4);
    if (!fetcher.ok()) EndWith(Failure(fetcher.status()));
    auto config = AddReplica(paths, *options, fetcher->get());
    if (!config.ok()) EndWith(Failure(config.status()));
    std::printf(
        "created replica %s of %s (storage %s); run cvmfs_server snapshot %s\n",
        config->name.c_str(), config->fqrn.c_str(), config->storage_dir.c_str(),
        config->name.c_str());
    // The same Apache snippet a Stratum 0 gets, for /cvmfs/<name>.
    auto apache = server::WriteApacheConfig(paths, config->name);
    if (!apache.ok())
      EndWith(Failure(apache.status().Annotate(
          "replica " + config->name +
          " was created, but its Apache configuration was not")));
    std::printf(
        "Apache configuration: %s\n%s", apache->c_str(),
        server::ApacheEnableInstructions(*apache, config->name).c_str());
    EndWith(0);
  });
}

void AddSnapshotCommand(CLI::App& app, const cvmfs::SystemPaths& paths) {
  auto all = std::make_shared<bool>(false);
  auto name = std::make_shared<std::string>();
  auto* cmd = app.add_subcommand("snapshot",
                                 "update a Stratum 1 replica from its source");
  cmd->add_flag("-a", *all, "update every replica on this machine");
  cmd->add_option("name", *name, "replica name");
  cmd->callback([all, name, &paths] {
    if (*all) {
      // One replica failing (or busy) does not stop the others.
      int rc = 0;
      for (const std::string& n : ListReplicas(paths)) {
        int r = SnapshotOne(paths, n);
        if (r != 0) rc = r;
      }
      EndWith(rc);
    }
    std::string target = *name;
    if (target.empty()) {
      auto replicas = ListReplicas(paths);
      if (replicas.size() != 1)
        EndWith(Failure(
            Status::InvalidArgument("name the replica, or use -a (there is not "
                                    "exactly one replica here)")));
      target = replicas.front();
    }
    EndWith(SnapshotOne(paths, target));
  });
}

}  // namespace replication
