// cvmfs_talk commands against a mount of a fixture repository served from
// memory (as in file_system_test.cc): replies have CVMFS's wording and
// report, or change, the state they name.
#include "client/talk/talk_commands.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <regex>
#include <sstream>
#include <thread>

#include "client/magic_xattrs.h"
#include "client/open_file.h"
#include "client/prefetch/prefetcher_report.h"
#include "cvmfs/file_util.h"
#include "cvmfs/network/string_sink.h"
#include "cvmfs/object_name.h"
#include "testing/memory_fetcher.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

constexpr char kFqrn[] = "sha1-zlib.example.org";

void LoadTree(const std::string& root, const std::string& rel,
              MemoryFetcher* fetcher) {
  auto names = ListDirectory(root + rel);
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  for (const std::string& name : *names) {
    std::string path = rel.empty() ? name : rel + "/" + name;
    if (IsDirectory(root + path)) {
      LoadTree(root, path, fetcher);
    } else {
      auto bytes = ReadFile(root + path);
      ASSERT_TRUE(bytes.ok());
      fetcher->Put(path, *bytes);
    }
  }
}

size_t Lines(const std::string& text) {
  return static_cast<size_t>(std::count(text.begin(), text.end(), '\n'));
}

class TalkCommandsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const std::string fixture = testing::FixturesDir() + "/" + kFqrn;
    auto server = std::make_unique<MemoryFetcher>();
    server_ = server.get();
    LoadTree(fixture + "/srv/cvmfs/" + kFqrn + "/", "", server_);
    MountConfig c;
    c.fqrn = kFqrn;
    c.cache.dir = tmp_.Sub("cache");
    c.cache.quota_limit = 256 << 20;
    c.public_key_files = {fixture + "/" + kFqrn + ".pub"};
    c.fs.fqrn = kFqrn;
    auto mount = RepositoryMount::Create(
        std::move(c), [](const std::string&) {}, std::move(server));
    ASSERT_TRUE(mount.ok()) << mount.status().ToString();
    mount_ = std::move(mount).value();
    TalkContext context;
    context.mount = mount_.get();
    context.mountpoint = "/cvmfs/" + std::string(kFqrn);
    context.parameters =
        "CVMFS_HTTP_PROXY=DIRECT    # from /etc/cvmfs/default.local\n";
    talk_ = std::make_unique<TalkCommands>(context);
  }

  FileSystem* fs() { return mount_->file_system(); }
  // Reads trigger prefetching in the background; tests that count objects
  // or evict wait until it has settled.
  void SettlePrefetch() {
    fs()->prefetch_triggers()->WaitIdle();
    fs()->prefetcher()->WaitIdle(std::chrono::seconds(10));
  }
  cache::PosixCache* cache() { return mount_->cache(); }
  std::string Talk(const std::string& command) {
    return talk_->Execute(command);
  }

  // The inode of a repository path ("large/big.dat").
  uint64_t InodeOf(const std::string& path) {
    uint64_t inode = kRootInode;
    std::istringstream parts(path);
    std::string name;
    while (std::getline(parts, name, '/')) {
      auto r = fs()->Lookup(inode, name);
      EXPECT_TRUE(r.ok()) << path << ": " << r.status().ToString();
      if (!r.ok()) return 0;
      inode = r->inode;
    }
    return inode;
  }
  Digest HashOf(const std::string& path) {
    auto hash = fs()->GetXattr(InodeOf(path), "user.hash");
    EXPECT_TRUE(hash.ok());
    return *Digest::Parse(*hash);
  }
  void ReadWhole(const std::string& path) {
    bool keep = false;
    auto file = fs()->Open(InodeOf(path), &keep);
    ASSERT_TRUE(file.ok()) << file.status().ToString();
    char buf[4096];
    off_t off = 0;
    for (;;) {
      auto n = fs()->Read(*file, buf, sizeof(buf), off);
      ASSERT_TRUE(n.ok());
      if (*n == 0) break;
      off += static_cast<off_t>(*n);
    }
    fs()->Release(*file);
  }

  testing::TempDir tmp_;
  MemoryFetcher* server_ = nullptr;
  std::unique_ptr<RepositoryMount> mount_;
  std::unique_ptr<TalkCommands> talk_;
};

TEST_F(TalkCommandsTest, CacheSizeInCvmfsWording) {
  const std::string reply = Talk("cache size");
  std::smatch m;
  ASSERT_TRUE(std::regex_match(
      reply, m,
      std::regex("Current cache size is (\\d+)MB \\((\\d+) Bytes\\), "
                 "pinned: (\\d+)MB \\((\\d+) Bytes\\)\n")))
      << reply;
  const cache::PosixCache::Usage usage = cache()->usage();
  EXPECT_EQ(std::to_string(usage.size), m[2].str());
  EXPECT_EQ(std::to_string(usage.pinned), m[4].str());
  EXPECT_GT(usage.pinned, 0u);  // the root catalog
}

TEST_F(TalkCommandsTest, CacheInstanceAndLists) {
  EXPECT_EQ(
      "Posix cache manager (cache directory: " + tmp_.Sub("cache") + ")\n",
      Talk("cache instance"));
  ReadWhole("bin/tool.sh");
  const std::string all = Talk("cache list");
  EXPECT_NE(std::string::npos, all.find("/bin/tool.sh\n")) << all;
  const std::string catalogs = Talk("cache list catalogs");
  EXPECT_EQ(std::string::npos, catalogs.find("/bin/tool.sh")) << catalogs;
  size_t n_catalogs = 0;
  for (const auto& e : cache()->List(false))
    n_catalogs += e.type == cache::ObjectType::kCatalog;
  EXPECT_EQ(n_catalogs, Lines(catalogs));
  EXPECT_EQ(cache()->List(true).size(), Lines(Talk("cache list pinned")));
}

TEST_F(TalkCommandsTest, PinKeepsChunksThroughCleanup) {
  EXPECT_EQ("OK\n", Talk("pin /large/big.dat"));
  const std::string pinned = Talk("cache list pinned");
  EXPECT_NE(std::string::npos, pinned.find("/large/big.dat")) << pinned;
  EXPECT_GE(cache()->usage().pinned, 12582912u);
  // Everything unpinned goes, also files kept open for reads by inode;
  // the pinned chunks and catalogs stay.
  char buf[64];
  ASSERT_TRUE(
      fs()->ReadInode(InodeOf("bin/tool.sh"), buf, sizeof(buf), 0).ok());
  SettlePrefetch();
  const Digest tool = HashOf("bin/tool.sh");
  EXPECT_EQ("Not fully cleaned (there might be pinned chunks)\n",
            Talk("cleanup 0"));
  EXPECT_FALSE(cache()->Contains(tool));
  EXPECT_EQ(cache()->usage().size, cache()->usage().pinned);
  EXPECT_NE(std::string::npos,
            Talk("evict /large/big.dat").find("are open or pinned"))
      << "pinned";
}

TEST_F(TalkCommandsTest, EvictRemovesAFileButNotAnOpenOne) {
  // Read the way a no_open kernel reads: the file system keeps it open.
  char buf[64];
  ASSERT_TRUE(
      fs()->ReadInode(InodeOf("bin/tool.sh"), buf, sizeof(buf), 0).ok());
  SettlePrefetch();
  const Digest tool = HashOf("bin/tool.sh");
  ASSERT_TRUE(cache()->Contains(tool));
  EXPECT_EQ("OK\n", Talk("evict /bin/tool.sh"));
  EXPECT_FALSE(cache()->Contains(tool));
  ASSERT_TRUE(
      fs()->ReadInode(InodeOf("bin/tool.sh"), buf, sizeof(buf), 0).ok());
  EXPECT_TRUE(cache()->Contains(tool));  // opened and fetched again
  EXPECT_EQ("OK\n", Talk("evict /bin/tool.sh"));
  EXPECT_EQ("OK\n", Talk("evict /bin/tool.sh"));  // not cached: nothing to do

  bool keep = false;
  auto open = fs()->Open(InodeOf("bin/tool.sh"), &keep);
  ASSERT_TRUE(open.ok());
  EXPECT_EQ("Not evicted: 1 of 1 objects are open or pinned\n",
            Talk("evict /cvmfs/sha1-zlib.example.org/bin/tool.sh"));
  fs()->Release(*open);
  EXPECT_EQ("OK\n", Talk("evict bin/tool.sh"));

  EXPECT_EQ("No such regular file\n", Talk("evict /no/such/file"));
  EXPECT_EQ("No such regular file\n", Talk("evict /bin"));
  EXPECT_EQ("Usage: evict <path>\n", Talk("evict"));
  EXPECT_EQ("No such regular file or pinning failed\n", Talk("pin /bin"));
}

TEST_F(TalkCommandsTest, CacheLimit) {
  EXPECT_EQ("Current cache limit is 256 MB\n", Talk("cache limit get"));
  EXPECT_EQ("OK\n", Talk("cache limit set 128"));
  EXPECT_EQ("Current cache limit is 128 MB\n", Talk("cache limit get"));
  EXPECT_EQ(128u << 20, cache()->usage().limit);
  EXPECT_EQ("Usage: cache limit set <MB>\n", Talk("cache limit set lots"));
  EXPECT_EQ("Usage: cleanup <MB>\n", Talk("cleanup -1"));
}

TEST_F(TalkCommandsTest, RevisionCatalogsAndTtl) {
  EXPECT_EQ(std::to_string(fs()->revision().revision) + "\n", Talk("revision"));
  const std::string tree = Talk("open catalogs");
  EXPECT_EQ(0u, tree.rfind("-> / (revision ", 0)) << tree;
  EXPECT_EQ(fs()->catalogs()->size(), Lines(tree));
  EXPECT_EQ("unset\n", Talk("max ttl info"));
  EXPECT_EQ("OK\n", Talk("max ttl set 5"));
  EXPECT_EQ("5 minutes\n", Talk("max ttl info"));
  EXPECT_EQ(300, mount_->max_ttl_s());
  EXPECT_EQ("Usage: max ttl set <minutes>\n", Talk("max ttl set soon"));
  const std::string remount = Talk("remount sync");
  EXPECT_EQ(0u, remount.find("Catalog up to date")) << remount;
}

TEST_F(TalkCommandsTest, ErrorCountersAndInternalAffairs) {
  const Digest hash = HashOf("bin/tool.sh");
  server_->Remove(ObjectPath(hash, ObjectSuffix::kNone));
  bool keep = false;
  EXPECT_FALSE(fs()->Open(InodeOf("bin/tool.sh"), &keep).ok());
  ASSERT_GT(fs()->io_errors(), 0u);
  const std::string affairs = Talk("internal affairs");
  EXPECT_NE(std::string::npos,
            affairs.find("Raw Counters:\nName|Value|Description\n"))
      << affairs;
  EXPECT_NE(std::string::npos,
            affairs.find("\ncvmfs.n_io_error|" +
                         std::to_string(fs()->io_errors()) + "|"));
  EXPECT_NE(std::string::npos,
            affairs.find("\nfetch.n_downloads|" +
                         std::to_string(fs()->objects()->counters().downloads) +
                         "|"));
  EXPECT_NE(std::string::npos,
            affairs.find("\ncatalog_mgr.n_loaded|" +
                         std::to_string(fs()->catalogs()->size())));
  EXPECT_EQ("OK\n", Talk("reset error counters"));
  EXPECT_EQ(0u, fs()->io_errors());
}

TEST_F(TalkCommandsTest, PrefetchInfoAndCounters) {
  bool keep = false;
  auto file = fs()->Open(InodeOf("bin/tool.sh"), &keep);
  ASSERT_TRUE(file.ok());
  fs()->Release(*file);
  SettlePrefetch();
  const std::string info = Talk("prefetch info");
  EXPECT_EQ(0u, info.find("Prefetch: on (")) << info;
  EXPECT_NE(std::string::npos, info.find("\nState: ")) << info;
  const std::string affairs = Talk("internal affairs");
  const PrefetchCounters c = fs()->prefetcher()->counters();
  EXPECT_NE(std::string::npos, affairs.find("\nprefetch.n_queued|" +
                                            std::to_string(c.queued) + "|"))
      << affairs;
  EXPECT_NE(std::string::npos, affairs.find("\nprefetch.sz_wasted_bytes|"));
}

TEST(PrefetchReportTest, Layout) {
  PrefetchOptions o;
  PrefetchCounters c;
  EXPECT_EQ("Prefetch: off\n", FormatPrefetchInfo(o, c));
  c.enabled = true;
  c.queued = 10;
  c.fetched = 8;
  c.fetched_bytes = 3 << 20;
  c.used = 4;
  c.used_bytes = 1 << 20;
  c.wasted_bytes = 2 << 20;
  c.paused = true;
  c.budget_bytes = o.max_bytes;
  EXPECT_EQ(
      "Prefetch: on (64 parallel, budget 4096 objects / 32.0 MB)\n"
      "State: paused (downloads failed: offline?)\n"
      "Speculation: off (no round trip measured yet, no cache miss yet; "
      "threshold 6 ms)\n"
      "Queued 10 objects; fetched 8 (3.0 MB), used 4 (1.0 MB), wasted 2.0 "
      "MB\n"
      "Cached already 0; overtaken by demand reads 0; skipped: 0 over "
      "budget, 0 throttled; errors 0\n"
      "Now: 0 queued, 0 in flight, 0 outstanding (0.0 MB); rate not "
      "measured\n",
      FormatPrefetchInfo(o, c));
  std::vector<Counter> list = PrefetchCounterList(c);
  ASSERT_FALSE(list.empty());
  EXPECT_EQ("prefetch.n_queued", list[0].name);
  EXPECT_EQ(10u, list[0].value);
}

TEST_F(TalkCommandsTest, ProcessFacts) {
  EXPECT_EQ(std::to_string(::getpid()) + "\n", Talk("pid"));
  EXPECT_EQ("no cache manager\n", Talk("pid cachemgr"));
  TalkContext with_manager;
  with_manager.mount = mount_.get();
  with_manager.cache_manager_pid = [] { return pid_t{4711}; };
  EXPECT_EQ("4711\n", TalkCommands(with_manager).Execute("pid cachemgr"));
  EXPECT_EQ("/cvmfs/sha1-zlib.example.org\n", Talk("mountpoint"));
  EXPECT_EQ("CVMFS_HTTP_PROXY=DIRECT    # from /etc/cvmfs/default.local\n",
            Talk("parameters"));
  EXPECT_EQ(std::string(kClientVersion) + " (CernVM-FS Fuse Module)\n" +
                kClientVersion + " (Loader)\n",
            Talk("version"));
  EXPECT_EQ("unknown command\n", Talk("cache"));
  EXPECT_EQ("unknown command\n", Talk("pidx"));
  EXPECT_EQ("unknown command\n", Talk("remount now"));
  EXPECT_EQ("No HTTP fetcher (repository served without network)\n",
            Talk("host info"));
  EXPECT_EQ("No HTTP fetcher (repository served without network)\n",
            Talk("host probe geo"));
}

// The value of one sample line of `metrics prometheus` ("" if absent).
std::string MetricValue(const std::string& page, const std::string& sample) {
  const size_t at = page.find("\n" + sample + " ");
  if (at == std::string::npos) return "";
  const size_t begin = at + sample.size() + 2;
  return page.substr(begin, page.find('\n', begin) - begin);
}

TEST_F(TalkCommandsTest, MetricsPrometheusMoveWithReadsAndErrors) {
  const std::string repo = "{repo=\"" + std::string(kFqrn) + "\"}";
  const std::string before = Talk("metrics prometheus");
  EXPECT_EQ(0u, before.find("# HELP ")) << before;
  EXPECT_EQ("1", MetricValue(before, "cvmfs_up" + repo)) << before;
  EXPECT_EQ("0", MetricValue(before, "cvmfs_nioerr_total" + repo));
  EXPECT_EQ("0", MetricValue(before, "cvmfs_timestamp_last_ioerr" + repo));
  const uint64_t downloads =
      std::stoull(MetricValue(before, "cvmfs_ndownload_total" + repo));
  const uint64_t misses =
      std::stoull(MetricValue(before, "cvmfs_cache_misses_total" + repo));

  // A missing object: an I/O error, with its time.
  server_->Remove(ObjectPath(HashOf("bin/tool.sh"), ObjectSuffix::kNone));
  bool keep = false;
  EXPECT_FALSE(fs()->Open(InodeOf("bin/tool.sh"), &keep).ok());
  const std::string failed = Talk("metrics prometheus");
  EXPECT_EQ(std::to_string(fs()->io_errors()),
            MetricValue(failed, "cvmfs_nioerr_total" + repo));
  EXPECT_NE("0", MetricValue(failed, "cvmfs_nioerr_total" + repo));
  EXPECT_NE("0", MetricValue(failed, "cvmfs_timestamp_last_ioerr" + repo));

  ReadWhole("added2/new.txt");
  SettlePrefetch();
  const std::string after = Talk("metrics prometheus");
  EXPECT_GT(std::stoull(MetricValue(after, "cvmfs_ndownload_total" + repo)),
            downloads);
  EXPECT_GT(std::stoull(MetricValue(after, "cvmfs_cache_misses_total" + repo)),
            misses);
}

// The network commands over an HttpFetcher that is never asked to fetch.
// Knows no name: the proxies of these tests stay unresolved, at once.
class NoNamesResolver : public DnsResolver {
 public:
  Result<ResolvedHost> Resolve(const std::string& name) override {
    return Status::NotFound("unknown name " + name);
  }
};

class TalkNetworkTest : public TalkCommandsTest {
 protected:
  void SetUp() override {
    TalkCommandsTest::SetUp();
    HttpFetcherOptions o;
    o.resolver = &resolver_;
    o.hosts = {"http://127.0.0.1:1/cvmfs/a", "http://127.0.0.1:1/cvmfs/b"};
    o.proxy_groups = {{"http://127.0.0.1:2"}, {"DIRECT"}};
    o.backoff_init_ms = o.backoff_max_ms = 1;
    auto http = HttpFetcher::Create(o);
    ASSERT_TRUE(http.ok()) << http.status().ToString();
    http_ = std::move(http).value();
    TalkContext context;
    context.mount = mount_.get();
    context.http = http_.get();
    talk_ = std::make_unique<TalkCommands>(context);
  }
  NoNamesResolver resolver_;  // outlives http_
  std::unique_ptr<HttpFetcher> http_;
};

TEST_F(TalkNetworkTest, HostInfoSwitchAndSet) {
  EXPECT_EQ(
      "  [0] http://127.0.0.1:1/cvmfs/a (unprobed)\n"
      "  [1] http://127.0.0.1:1/cvmfs/b (unprobed)\n"
      "Active host 0: http://127.0.0.1:1/cvmfs/a\n",
      Talk("host info"));
  EXPECT_EQ("OK\n", Talk("host switch"));
  EXPECT_EQ("http://127.0.0.1:1/cvmfs/b", http_->CurrentHost());
  EXPECT_EQ("OK\n", Talk("host set http://s1/cvmfs/@fqrn@;http://s2/@org@"));
  EXPECT_EQ(
      "  [0] http://s1/cvmfs/sha1-zlib.example.org (unprobed)\n"
      "  [1] http://s2/sha1-zlib (unprobed)\n"
      "Active host 0: http://s1/cvmfs/sha1-zlib.example.org\n",
      Talk("host info"));
  EXPECT_EQ(0u, Talk("host set ftp://nowhere").rfind("Failed: ", 0));
  EXPECT_EQ(2u, http_->Hosts().size());
  EXPECT_EQ("Usage: host set <host list>\n", Talk("host set"));
  // Nobody answers the Geo-API on these hosts: Failed, the order kept.
  EXPECT_EQ("Failed\n", Talk("host probe geo"));
  EXPECT_EQ(
      "  [0] http://s1/cvmfs/sha1-zlib.example.org (unprobed)\n"
      "  [1] http://s2/sha1-zlib (unprobed)\n"
      "Active host 0: http://s1/cvmfs/sha1-zlib.example.org\n",
      Talk("host info"));
  // The same list ordered by the Geo-API says so.
  ASSERT_TRUE(http_->SetHosts(http_->Hosts(), /*geo_ordered=*/true).ok());
  EXPECT_EQ(
      "  [0] http://s1/cvmfs/sha1-zlib.example.org (geographically ordered)\n"
      "  [1] http://s2/sha1-zlib (geographically ordered)\n"
      "Active host 0: http://s1/cvmfs/sha1-zlib.example.org\n",
      Talk("host info"));
}

TEST_F(TalkNetworkTest, ProxyInfoSwitchAndSet) {
  const std::string first = Talk("proxy info");
  EXPECT_TRUE(std::regex_match(
      first, std::regex("Load-balance groups:\n"
                        "\\[0\\] http://127\\.0\\.0\\.1:2 "
                        "\\(127\\.0\\.0\\.1, \\+2[34]h\\)\n"
                        "\\[1\\] DIRECT\n"
                        "Active proxy: \\[0\\] http://127\\.0\\.0\\.1:2\n")))
      << first;
  EXPECT_EQ("OK\n", Talk("proxy switch"));
  EXPECT_EQ("DIRECT", http_->CurrentProxy());
  EXPECT_NE(std::string::npos,
            Talk("proxy info").find("Active proxy: [1] DIRECT\n"));
  EXPECT_EQ("OK\n", Talk("proxy set http://p1:3128|http://p2:3128;DIRECT"));
  const std::string info = Talk("proxy info");
  EXPECT_EQ(0u, info.find("Load-balance groups:\n[0] http://p1:3128 "
                          "(:unresolved:, +"))
      << info;
  EXPECT_NE(std::string::npos, info.find("http://p2:3128 (:unresolved:, +"))
      << info;
  EXPECT_NE(std::string::npos, info.find("\n[1] DIRECT\n")) << info;
  EXPECT_EQ(0u, Talk("proxy set auto").rfind("Failed, no valid proxies", 0));
  EXPECT_EQ(2u, http_->Proxies().size());
}

TEST_F(TalkNetworkTest, ProxySetResolvesAuto) {
  TalkContext context;
  context.mount = mount_.get();
  context.http = http_.get();
  std::vector<ProxyGroups> asked;
  context.resolve_auto_proxies =
      [&asked](const ProxyGroups& groups) -> Result<ProxyGroups> {
    asked.push_back(groups);
    if (groups.front().front() != "auto") return groups;
    return ProxyGroups{{"http://127.0.0.7:3128"}, {"DIRECT"}};
  };
  talk_ = std::make_unique<TalkCommands>(context);
  EXPECT_EQ("OK\n", Talk("proxy set auto;DIRECT"));
  EXPECT_EQ(http_->Proxies(),
            (ProxyGroups{{"http://127.0.0.7:3128"}, {"DIRECT"}}));
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_EQ(asked[0], (ProxyGroups{{"auto"}, {"DIRECT"}}));
  context.resolve_auto_proxies = [](const ProxyGroups&) -> Result<ProxyGroups> {
    return Status::Unavailable("failed to discover HTTP proxy servers");
  };
  talk_ = std::make_unique<TalkCommands>(context);
  EXPECT_EQ(0u, Talk("proxy set auto")
                    .rfind("Failed, no valid proxies "
                           "(failed to discover",
                           0));
}

TEST_F(TalkNetworkTest, Timeouts) {
  EXPECT_EQ("Timeout with proxy: 5s\nTimeout without proxy: 10s\n",
            Talk("timeout info"));
  EXPECT_EQ("OK\n", Talk("timeout set 3 7"));
  EXPECT_EQ("Timeout with proxy: 3s\nTimeout without proxy: 7s\n",
            Talk("timeout info"));
  EXPECT_EQ("OK\n", Talk("timeout set 4"));
  EXPECT_EQ(4, http_->timeout_s());
  EXPECT_EQ(7, http_->timeout_direct_s());
  EXPECT_EQ(0u, Talk("timeout set 0").rfind("Usage: timeout set", 0));
  EXPECT_EQ(0u, Talk("timeout set 1 2 3").rfind("Usage: timeout set", 0));
}

TEST_F(TalkNetworkTest, MetricsCountAttemptsPerHost) {
  EXPECT_EQ(std::string::npos,
            Talk("metrics prometheus").find("cvmfs_host_requests_total"));
  StringSink sink;
  DownloadRequest request;
  request.url_path = ".cvmfspublished";
  EXPECT_FALSE(http_->Fetch(request, &sink).status.ok());  // nothing listens
  const std::string page = Talk("metrics prometheus");
  EXPECT_NE(std::string::npos,
            page.find("cvmfs_host_errors_total{repo=\"sha1-zlib.example.org\","
                      "host=\"http://127.0.0.1:1/cvmfs/a\",proxy=\"http://"
                      "127.0.0.1:2\"} "))
      << page;
  EXPECT_NE(std::string::npos,
            page.find("cvmfs_host_request_duration_seconds_count{"));
}

TEST_F(TalkNetworkTest, InternalAffairsCountsRequests) {
  EXPECT_NE(std::string::npos,
            Talk("internal affairs").find("\ndownload.n_requests|0|"));
}

}  // namespace
}  // namespace cvmfs::client
