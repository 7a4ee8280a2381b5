// `cvmfs_server serve [-p PORT] [-a ADDRESS] [-l ACCESS_LOG] [-t THREADS]
// [--max-connections-per-address N] [--header-timeout SECONDS]
// [--metrics-path PATH | --no-metrics] [--geo-db FILE] [--geo-locations FILE]
// [FQRN...]`: the
// embedded HTTP server (http_server.h) as a foreground program, for the named
// repositories (default: every one on this machine). It prints one "serving
// FQRN at URL" line per repository once it accepts connections, and stops
// cleanly on SIGTERM or SIGINT: the listening socket closes, running responses
// end, the access log is complete, exit status 0. GET /metrics (or
// --metrics-path) answers the server's counters for Prometheus. With a
// GeoLite2 database or a location table it answers CVMFS's Geo-API
// (server/geo_api.h, doc/serving.md).
#include <signal.h>

#include <cstdio>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cvmfs/file_util.h"
#include "programs/cvmfs_server/command.h"
#include "programs/cvmfs_server/commands.h"
#include "server/geo_name_cache.h"
#include "server/http_server.h"

namespace cvmfs_server {
namespace {

using cvmfs::Result;
using cvmfs::Status;
using server::HttpServer;
using server::HttpServerOptions;
using server::ServedRepository;

struct ServeArgs {
  int port = 8000;
  std::string address = "127.0.0.1";
  std::string access_log;
  unsigned threads = 4;
  unsigned max_connections_per_address =
      HttpServerOptions().max_connections_per_address;
  unsigned header_timeout_seconds = HttpServerOptions().header_timeout_seconds;
  std::string metrics_path = HttpServerOptions().metrics_path;
  bool no_metrics = false;
  std::string geo_db;  // "" = CVMFS's default path, if it exists
  std::string geo_locations;
  std::vector<std::string> fqrns;
};

// The named repositories, or every one configured here; each must have a
// published storage directory.
Result<std::vector<ServedRepository>> Repositories(
    const cvmfs::SystemPaths& paths, std::vector<std::string> fqrns) {
  if (fqrns.empty()) {
    auto all = cvmfs::ListDirectory(paths.RepositoriesD());
    if (!all.ok() || all->empty())
      return Status::InvalidArgument("no repositories in " +
                                     paths.RepositoriesD() + "; name one");
    fqrns = std::move(*all);
  }
  std::vector<ServedRepository> repos;
  for (const std::string& fqrn : fqrns) {
    std::string storage = paths.Storage(fqrn);
    if (!cvmfs::PathExists(storage + "/.cvmfspublished"))
      return Status::NotFound("repository " + fqrn + ": no " + storage +
                              "/.cvmfspublished (not created or replicated "
                              "on this machine?)");
    repos.push_back({fqrn, storage});
  }
  return repos;
}

// The Geo-API from --geo-db and --geo-locations; null when neither gives
// anything (then the API is off).
Result<std::shared_ptr<const server::GeoApi>> MakeGeoApi(
    const cvmfs::SystemPaths& paths, const ServeArgs& args) {
  std::unique_ptr<server::GeoDatabase> database;
  std::string used;
  if (args.geo_db != "NONE" && args.geo_db != "none") {
    const std::string path =
        args.geo_db.empty()
            ? paths.Under("/var/lib/cvmfs-server/geo/GeoLite2-City.mmdb")
            : args.geo_db;
    if (!args.geo_db.empty() || cvmfs::PathExists(path)) {
      CVMFS_ASSIGN_OR_RETURN(database, server::GeoDatabase::Open(path));
      used = "database " + path;
    }
  }
  std::optional<server::LocationTable> table;
  if (!args.geo_locations.empty()) {
    CVMFS_ASSIGN_OR_RETURN(table,
                           server::LocationTable::Load(args.geo_locations));
    used += (used.empty() ? "" : ", ") + std::string("location table ") +
            args.geo_locations + " (" + std::to_string(table->size()) +
            " entries)";
  }
  if (!database && !table) return std::shared_ptr<const server::GeoApi>();
  std::printf("Geo-API from %s\n", used.c_str());
  return std::shared_ptr<const server::GeoApi>(std::make_shared<server::GeoApi>(
      std::move(database), std::move(table),
      server::CachingResolver(server::SystemResolver())));
}

// Blocks the stop signals in this thread (and in the server's threads,
// which inherit the mask) so that sigwait() receives them.
sigset_t BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  return set;
}

// Serves until SIGTERM or SIGINT; returns the exit status.
int Serve(const cvmfs::SystemPaths& paths, const ServeArgs& args) {
  if (args.port < 0 || args.port > 65535)
    return FailMessage(Status::InvalidArgument(
        "port " + std::to_string(args.port) + " is not in 0..65535"));
  HttpServerOptions options;
  options.address = args.address;
  options.port = static_cast<uint16_t>(args.port);
  options.access_log = args.access_log;
  options.threads = args.threads;
  options.max_connections_per_address = args.max_connections_per_address;
  options.header_timeout_seconds = args.header_timeout_seconds;
  options.metrics_path = args.no_metrics ? "" : args.metrics_path;
  auto repos = Repositories(paths, args.fqrns);
  if (!repos.ok()) return FailMessage(repos.status());
  options.repositories = std::move(*repos);
  auto geo = MakeGeoApi(paths, args);
  if (!geo.ok()) return FailMessage(geo.status());
  options.geo_api = std::move(*geo);

  sigset_t stop = BlockStopSignals();
  auto server = HttpServer::Start(options);
  if (!server.ok()) return FailMessage(server.status());
  for (const ServedRepository& repo : options.repositories)
    std::printf("serving %s at %s\n", repo.fqrn.c_str(),
                (*server)->RepositoryUrl(repo.fqrn).c_str());
  std::fflush(stdout);

  int signal_number = 0;
  while (sigwait(&stop, &signal_number) != 0) {
  }
  std::printf("received %s, stopping\n", strsignal(signal_number));
  server->reset();
  std::printf("stopped\n");
  std::fflush(stdout);
  return 0;
}

}  // namespace

std::vector<Command> AddServeCommand(CLI::App& app, const Paths& paths) {
  auto args = std::make_shared<ServeArgs>();
  auto* cmd = app.add_subcommand(
      "serve", "serve repositories over HTTP without Apache (until SIGTERM)");
  cmd->add_option("-p,--port", args->port, "TCP port; 0 picks a free one")
      ->capture_default_str();
  cmd->add_option("-a,--address", args->address,
                  "numeric address to listen on (0.0.0.0 or :: for all)")
      ->capture_default_str();
  cmd->add_option("-l,--access-log", args->access_log,
                  "append requests to this file (Common Log Format)");
  cmd->add_option("-t,--threads", args->threads, "worker threads")
      ->capture_default_str()
      ->check(CLI::Range(1u, 256u));
  cmd->add_option("--max-connections-per-address",
                  args->max_connections_per_address,
                  "connections one client address may hold open (0: no "
                  "limit; a site proxy is one address)")
      ->capture_default_str()
      ->check(CLI::Range(0u, 65535u));
  cmd->add_option("--header-timeout", args->header_timeout_seconds,
                  "seconds a client has to send a request's headers")
      ->capture_default_str()
      ->check(CLI::Range(1u, 3600u));
  auto* path = cmd->add_option("--metrics-path", args->metrics_path,
                               "where Prometheus metrics are served (outside "
                               "/cvmfs/)")
                   ->capture_default_str();
  cmd->add_flag("--no-metrics", args->no_metrics, "serve no metrics page")
      ->excludes(path);
  cmd->add_option("--geo-db", args->geo_db,
                  "GeoLite2 City database for the Geo-API (CVMFS_GEO_DB_FILE; "
                  "default /var/lib/cvmfs-server/geo/GeoLite2-City.mmdb if "
                  "present; NONE for none)");
  cmd->add_option("--geo-locations", args->geo_locations,
                  "Geo-API location table: 'name-or-CIDR latitude longitude' "
                  "lines, consulted before the database");
  cmd->add_option("fqrn", args->fqrns,
                  "repositories (default: every one on this machine)");
  return {MakeCommand(cmd, paths, args, Serve)};
}

}  // namespace cvmfs_server
