// cvmfs_gateway: the repository gateway daemon (doc/gateway.md). Reads
// /etc/cvmfs/gateway/{user,repo}.json (under CVMFS_ROOTDIR), serves the
// HTTP API v1 until SIGTERM or SIGINT.
#include <pthread.h>

#include <CLI/CLI.hpp>
#include <csignal>
#include <cstdio>

#include "cvmfs/file_util.h"
#include "cvmfs/system_paths.h"
#include "server/gateway/access_config.h"
#include "server/gateway/gateway_http.h"
#include "server/gateway/gateway_service.h"
#include "server/gateway/lease_commit.h"
#include "server/gateway/lease_store.h"
#include "server/gateway/repository_gc.h"
#include "server/gateway/repository_stores.h"

namespace {

int Fail(const cvmfs::Status& s) {
  std::fprintf(stderr, "cvmfs_gateway: %s\n", s.ToString().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  cvmfs::SystemPaths paths = cvmfs::SystemPaths::FromEnvironment();
  std::string user_config = paths.EtcCvmfs() + "/gateway/user.json";
  std::string access_config = paths.EtcCvmfs() + "/gateway/repo.json";
  std::string address = "0.0.0.0";
  int port = -1;
  int64_t max_lease_time = -1;
  CLI::App app{"cvmfs_gateway: the CernVM-FS repository gateway"};
  app.add_option("--user_config_file", user_config,
                 "settings (port, max_lease_time)");
  app.add_option("--access_config_file", access_config,
                 "repositories and keys");
  app.add_option("--port", port, "HTTP port (default: user.json's, 4929)");
  app.add_option("--max_lease_time", max_lease_time,
                 "lease duration in seconds (default: user.json's, 7200)");
  app.add_option("--address", address, "IPv4 address to listen on");
  CLI11_PARSE(app, argc, argv);

  gateway::GatewaySettings settings;
  if (cvmfs::PathExists(user_config)) {
    auto text = cvmfs::ReadFile(user_config);
    if (!text.ok()) return Fail(text.status());
    auto parsed = gateway::ParseGatewaySettings(*text);
    if (!parsed.ok()) return Fail(parsed.status().Annotate(user_config));
    settings = *parsed;
  }
  if (port >= 0) settings.port = port;
  if (max_lease_time > 0) settings.max_lease_time_s = max_lease_time;
  if (settings.port < 0 || settings.port > 65535)
    return Fail(cvmfs::Status::InvalidArgument("port out of range"));

  auto text = cvmfs::ReadFile(access_config);
  if (!text.ok()) return Fail(text.status());
  auto access =
      gateway::ParseAccessConfig(*text, paths.KeysDir(), cvmfs::ReadGatewayKey);
  if (!access.ok()) return Fail(access.status().Annotate(access_config));

  // Leases survive a restart: saved in work_dir (user.json, as CVMFS's).
  const std::string work_dir = paths.Under(settings.work_dir);
  if (cvmfs::Status made = cvmfs::MakeDirs(work_dir, 0700); !made.ok())
    return Fail(made.Annotate("work_dir"));
  gateway::FileLeaseStore lease_store(work_dir + "/leases.json");

  gateway::RepositoryStores stores(paths);
  gateway::GatewayOptions options;
  options.lease_store = &lease_store;
  options.access = std::move(*access);
  options.max_lease_time = std::chrono::seconds(settings.max_lease_time_s);
  options.store = [&stores](const std::string& fqrn) {
    return stores.Get(fqrn);
  };
  options.commit = [&paths](const gateway::LeaseCommitRequest& request) {
    return gateway::CommitLease(paths, request);
  };
  options.gc = [&paths](const gateway::RepositoryGcRequest& request) {
    return gateway::CollectRepositoryGarbage(paths, request);
  };
  gateway::GatewayService service(std::move(options));
  if (cvmfs::Status restored = service.RestoreLeases(); !restored.ok())
    return Fail(restored);

  sigset_t stop;
  sigemptyset(&stop);
  sigaddset(&stop, SIGINT);
  sigaddset(&stop, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop, nullptr);
  auto server = gateway::GatewayHttpServer::Start(
      &service, address, static_cast<uint16_t>(settings.port));
  if (!server.ok()) return Fail(server.status());
  std::printf("cvmfs_gateway: listening on %s:%u\n", address.c_str(),
              static_cast<unsigned>((*server)->port()));
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop, &sig);
  service.Shutdown();  // ends the notification streams, so the server stops
  return 0;
}
