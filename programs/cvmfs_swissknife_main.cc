// cvmfs_swissknife: CVMFS's server-side toolbox; here only its `notify`
// command (doc/notifications.md), with CVMFS's options:
//
//   cvmfs_swissknife notify -p -u SERVER -r REPOSITORY_URL [-v]
//     announces the repository's current manifest (REPOSITORY_URL is an
//     http(s) URL or a local storage directory) to SERVER
//   cvmfs_swissknife notify -s -u SERVER -t FQRN [-c] [-m REVISION] [-v]
//     waits for an announcement of a revision newer than REVISION (default
//     0) of FQRN, verified against the Stratum 0 and keys of the replica
//     FQRN configured here; prints it and exits 0 (with -c, keeps going)
//
// SERVER is what CVMFS_NOTIFICATION_SERVER holds (http://gw:4929/api/v1).
#include <CLI/CLI.hpp>
#include <condition_variable>
#include <cstdio>
#include <ctime>
#include <memory>
#include <string>

#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/mutex.h"
#include "cvmfs/network/notification_publisher.h"
#include "cvmfs/network/notification_subscriber.h"
#include "cvmfs/network/string_sink.h"
#include "cvmfs/object_name.h"
#include "cvmfs/system_paths.h"
#include "cvmfs/time_format.h"
#include "cvmfs/trust_chain.h"
#include "server/replication/replica.h"
#include "server/replication/replica_config.h"
#include "server/replication/source_verifier.h"

namespace {

using cvmfs::Result;
using cvmfs::Status;

struct NotifyArgs {
  bool publish = false, subscribe = false, continuous = false, verbose = false;
  std::string server, repository_url, fqrn;
  uint64_t min_revision = 0;
};

Result<std::string> ReadManifest(const std::string& repository_url) {
  if (repository_url.rfind("http://", 0) == 0 ||
      repository_url.rfind("https://", 0) == 0) {
    CVMFS_ASSIGN_OR_RETURN(
        auto fetcher, replication::MakeSourceFetcher(repository_url, 60, 1, 1));
    cvmfs::StringSink sink(cvmfs::kMaxSignedFileSize);
    cvmfs::DownloadResult r = fetcher->Fetch(
        {std::string(cvmfs::kManifestName), /*no_cache=*/true}, &sink);
    if (!r.status.ok())
      return r.status.Annotate("downloading the manifest of " + repository_url);
    return sink.TakeBody();
  }
  return cvmfs::ReadFile(repository_url + "/" +
                         std::string(cvmfs::kManifestName));
}

int Publish(const NotifyArgs& a) {
  auto file = ReadManifest(a.repository_url);
  if (!file.ok()) {
    std::fprintf(stderr, "cvmfs_swissknife notify: %s\n",
                 file.status().ToString().c_str());
    return 6;
  }
  auto parsed = cvmfs::Manifest::Parse(*file);
  if (!parsed.ok() || parsed->manifest.fqrn.empty()) {
    std::fprintf(stderr,
                 "cvmfs_swissknife notify: %s has no valid manifest with a "
                 "repository name\n",
                 a.repository_url.c_str());
    return 7;
  }
  cvmfs::ActivityMessage m;
  m.timestamp = cvmfs::FormatTime(::time(nullptr), "%d %b %Y %H:%M:%S",
                                  cvmfs::TimeZone::kUtc);
  m.repository = parsed->manifest.fqrn;
  m.manifest = std::move(file).value();
  Status st = cvmfs::PublishNotification(a.server, m, std::chrono::seconds(60));
  if (!st.ok()) {
    std::fprintf(stderr, "cvmfs_swissknife notify: could not publish: %s\n",
                 st.ToString().c_str());
    return 9;
  }
  if (a.verbose)
    std::printf("announced revision %llu of %s to %s\n",
                static_cast<unsigned long long>(  // NOLINT(runtime/int)
                    parsed->manifest.revision),
                m.repository.c_str(), a.server.c_str());
  return 0;
}

int Subscribe(const cvmfs::SystemPaths& paths, const NotifyArgs& a) {
  auto config = replication::ReplicaConfig::Load(paths, a.fqrn);
  if (!config.ok()) {
    std::fprintf(stderr,
                 "cvmfs_swissknife notify: %s is not a replica here (its "
                 "Stratum 0 and keys verify the announcements): %s\n",
                 a.fqrn.c_str(), config.status().ToString().c_str());
    return 1;
  }
  auto keys = cvmfs::LoadMasterKeys(config->public_keys);
  auto fetcher = replication::MakeSourceFetcher(
      config->stratum0_url, config->http_timeout_s, config->http_retries, 1);
  if (!keys.ok() || !fetcher.ok()) {
    std::fprintf(
        stderr, "cvmfs_swissknife notify: %s\n",
        (!keys.ok() ? keys.status() : fetcher.status()).ToString().c_str());
    return 1;
  }
  uint64_t revision = a.min_revision;
  bool done = false;
  cvmfs::Mutex mu;
  std::condition_variable cv;
  cvmfs::NotificationSubscriberOptions o;
  o.server = a.server;
  o.fqrn = config->fqrn;
  o.user_agent = "cvmfs_swissknife";
  auto on_message = [&](const cvmfs::ActivityMessage& m) {
    auto verified = replication::VerifyAnnouncedManifest(
        fetcher->get(), *keys, config->fqrn, m.manifest, ::time(nullptr));
    if (!verified.ok()) {
      std::fprintf(stderr, "notification ignored: %s\n",
                   verified.status().ToString().c_str());
      return;
    }
    const uint64_t announced = verified->manifest.revision;
    if (announced <= revision) {
      if (a.verbose)
        std::fprintf(stderr, "notification ignored: revision %llu\n",
                     static_cast<unsigned long long>(announced));  // NOLINT
      return;
    }
    revision = announced;
    std::printf("repository %s is now at revision %llu\n", config->fqrn.c_str(),
                static_cast<unsigned long long>(announced));  // NOLINT
    std::fflush(stdout);
    if (!a.continuous) {
      cvmfs::MutexLock lock(&mu);
      done = true;
      cv.notify_all();
    }
  };
  auto on_log = [&](const std::string& what) {
    std::fprintf(stderr, "%s\n", what.c_str());
  };
  cvmfs::NotificationSubscriber sub(o, on_message, on_log);
  sub.Start();
  cvmfs::MutexLock lock(&mu);
  while (!done) lock.Wait(&cv);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  const cvmfs::SystemPaths paths = cvmfs::SystemPaths::FromEnvironment();
  CLI::App app{"cvmfs_swissknife: CVMFS server-side tools (only notify)"};
  app.require_subcommand(1);
  NotifyArgs a;
  CLI::App* notify = app.add_subcommand(
      "notify", "publish or subscribe to repository activity notifications");
  notify->add_flag("-p", a.publish, "publish the repository's manifest");
  notify->add_flag("-s", a.subscribe, "subscribe to the repository's activity");
  notify
      ->add_option("-u", a.server,
                   "notification server URL (http://gw:4929/api/v1)")
      ->required();
  notify->add_option("-r", a.repository_url,
                     "repository URL or storage directory (with -p)");
  notify->add_option("-t", a.fqrn, "repository name (with -s)");
  notify->add_flag("-c", a.continuous, "continuous: do not exit (with -s)");
  notify->add_option("-m", a.min_revision,
                     "react only to revisions above this one (with -s)");
  notify->add_flag("-v", a.verbose, "verbose");
  CLI11_PARSE(app, argc, argv);
  if (a.publish == a.subscribe) {
    std::fprintf(stderr, "cvmfs_swissknife notify: give one of -p and -s\n");
    return 2;
  }
  if (a.publish && a.repository_url.empty()) {
    std::fprintf(stderr, "cvmfs_swissknife notify: -p needs -r URL\n");
    return 2;
  }
  if (a.subscribe && a.fqrn.empty()) {
    std::fprintf(stderr, "cvmfs_swissknife notify: -s needs -t FQRN\n");
    return 2;
  }
  return a.publish ? Publish(a) : Subscribe(paths, a);
}
