// Fuzz target: the control socket's commands (talk_commands.h): every line
// of the input is one command, executed against a real mount of the fixture
// repository sha1-zlib.example.org (served from memory, cache in a temporary
// directory) with an HttpFetcher that is never asked to fetch, as in
// talk_commands_test.cc. The mount is made once and kept between inputs
// (cache contents and limits carry over), so a crash may need the inputs
// before it: run.sh keeps them all. Needs CVMFS_SOURCE_DIR (or
// CVMFS_FIXTURES_DIR) to find the fixture.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>

#include "client/repository_mount.h"
#include "client/talk/talk_commands.h"
#include "cvmfs/file_util.h"
#include "cvmfs/network/http_fetcher.h"
#include "testing/memory_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

constexpr char kFqrn[] = "sha1-zlib.example.org";
constexpr int kMaxCommands = 16;

Status LoadTree(const std::string& root, const std::string& rel,
                MemoryFetcher* fetcher) {
  CVMFS_ASSIGN_OR_RETURN(auto names, ListDirectory(root + rel));
  for (const std::string& name : names) {
    std::string path = rel.empty() ? name : rel + "/" + name;
    if (IsDirectory(root + path)) {
      CVMFS_RETURN_IF_ERROR(LoadTree(root, path, fetcher));
    } else {
      CVMFS_ASSIGN_OR_RETURN(std::string bytes, ReadFile(root + path));
      fetcher->Put(path, std::move(bytes));
    }
  }
  return Status::Ok();
}

// Knows no name: `proxy set` with proxy names never reaches the network.
class NoNamesResolver : public DnsResolver {
 public:
  Result<ResolvedHost> Resolve(const std::string& name) override {
    return Status::NotFound("unknown name " + name);
  }
};

struct Fixture {
  testing::TempDir tmp;
  NoNamesResolver resolver;  // outlives http
  std::unique_ptr<HttpFetcher> http;
  std::unique_ptr<RepositoryMount> mount;
  std::unique_ptr<TalkCommands> talk;
};

std::unique_ptr<Fixture> MakeFixture() {
  auto f = std::make_unique<Fixture>();
  const std::string fixture = testing::FixturesDir() + "/" + kFqrn;
  auto server = std::make_unique<MemoryFetcher>();
  Status loaded =
      LoadTree(fixture + "/srv/cvmfs/" + kFqrn + "/", "", server.get());
  if (!loaded.ok()) {
    fprintf(stderr, "talk_commands_fuzzer: %s (set CVMFS_SOURCE_DIR)\n",
            loaded.ToString().c_str());
    abort();
  }
  MountConfig c;
  c.fqrn = kFqrn;
  c.cache.dir = f->tmp.Sub("cache");
  c.cache.quota_limit = 64 << 20;
  c.public_key_files = {fixture + "/" + kFqrn + ".pub"};
  c.fs.fqrn = kFqrn;
  auto mount = RepositoryMount::Create(
      std::move(c), [](const std::string&) {}, std::move(server));
  if (!mount.ok()) abort();
  f->mount = std::move(mount).value();
  HttpFetcherOptions o;
  o.hosts = {"http://127.0.0.1:1/cvmfs/a", "http://127.0.0.1:1/cvmfs/b"};
  o.proxy_groups = {{"http://127.0.0.1:2"}, {"DIRECT"}};
  o.resolver = &f->resolver;
  auto http = HttpFetcher::Create(o);
  if (!http.ok()) abort();
  f->http = std::move(http).value();
  TalkContext context;
  context.mount = f->mount.get();
  context.http = f->http.get();
  context.mountpoint = std::string("/cvmfs/") + kFqrn;
  context.parameters = "CVMFS_HTTP_PROXY=DIRECT    # from default.local\n";
  f->talk = std::make_unique<TalkCommands>(context);
  return f;
}

}  // namespace
}  // namespace cvmfs::client

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  // Destroyed at exit: the mount stops and the temporary directory goes.
  static std::unique_ptr<cvmfs::client::Fixture> fixture =
      cvmfs::client::MakeFixture();
  std::string_view input(reinterpret_cast<const char*>(data), size);
  for (int i = 0; i < cvmfs::client::kMaxCommands && !input.empty(); ++i) {
    size_t nl = std::min(input.find('\n'), input.size());
    std::string reply =
        fixture->talk->Execute(std::string(input.substr(0, nl)));
    input.remove_prefix(std::min(nl + 1, input.size()));
    if (reply.empty() || reply.back() != '\n') {
      fprintf(stderr, "reply does not end in a newline: '%s'\n", reply.c_str());
      abort();
    }
  }
  return 0;
}
