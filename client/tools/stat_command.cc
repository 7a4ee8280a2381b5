// cvmfs_config stat: CVMFS's one-line summary (or -v, one value a line) of
// each mounted repository of this CVMFS_ROOTDIR (root_mounts.h), from its
// magic attributes, /proc and statfs.
#include <sys/statvfs.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>

#include "client/tools/config_tool.h"
#include "client/tools/repository_config.h"
#include "client/tools/root_mounts.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/network/string_sink.h"

namespace cvmfs::tools {

namespace {

// The first number on the line of a /proc file that starts with `key`.
std::string ProcField(const std::string& file, const std::string& key,
                      int column) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line)) {
    if (line.compare(0, key.size(), key) != 0) continue;
    std::istringstream fields(line.substr(key.size()));
    std::string value;
    for (int i = 0; i <= column && fields >> value;) ++i;
    return value;
  }
  return "0";
}

// Whether the repository's manifest can be fetched through its current
// host and proxy now (CVMFS does the same with curl).
bool Online(const std::map<std::string, std::string>& a) {
  HttpFetcherOptions o;
  o.hosts = {a.at("host")};
  if (a.at("proxy") != "DIRECT" && !a.at("proxy").empty())
    o.proxy_groups = {{a.at("proxy")}};
  o.timeout_s = std::max(1, std::atoi(a.at("timeout").c_str()));
  o.timeout_direct_s = std::max(1, std::atoi(a.at("timeout_direct").c_str()));
  o.max_retries = 0;
  o.backoff_init_ms = o.backoff_max_ms = 1;
  // A probe, not a mount: a server that trickles gets as long as a
  // connect and a low-speed window take, then counts as offline.
  o.metadata_deadline_ms = 1000 * std::max(o.timeout_s, o.timeout_direct_s);
  auto fetcher = HttpFetcher::Create(o);
  if (!fetcher.ok()) return false;
  StringSink sink(1 << 20);
  DownloadRequest request;
  request.url_path = ".cvmfspublished";
  request.metadata = true;
  return (*fetcher)->Fetch(request, &sink).status.ok();
}

std::map<std::string, std::string> Collect(const CvmfsMount& m) {
  std::map<std::string, std::string> a;
  for (const char* name :
       {"version", "pid", "uptime", "revision", "root_hash", "expires", "nclg",
        "usedfd", "nioerr", "host", "proxy", "timeout", "timeout_direct",
        "nopen", "ndiropen", "ndownload", "hitrate", "rx"}) {
    auto v = MagicAttribute(m.mountpoint, name);
    a[name] = v.ok() ? *v : "";
  }
  auto optional = [&](const char* name, const std::string& fallback) {
    auto v = MagicAttribute(m.mountpoint, name);
    a[name] = v.ok() ? *v : fallback;
  };
  const std::string proc = "/proc/" + a["pid"];
  optional("maxfd", ProcField(proc + "/limits", "Max open files", 0));
  optional("useddirp", a["ndiropen"]);
  optional("speed", "0");
  optional("prefetch", "");
  a["memory"] = ProcField(proc + "/status", "VmRSS:", 0);
  struct statvfs st {};
  uint64_t use = 0, max = 0;
  if (::statvfs(m.mountpoint.c_str(), &st) == 0) {
    use = (st.f_blocks - st.f_bfree) * st.f_frsize / 1024;
    max = use + st.f_bavail * st.f_frsize / 1024;
  }
  a["cache_use"] = std::to_string(use);
  a["cache_max"] = std::to_string(max);
  a["online"] = Online(a) ? "1" : "0";
  return a;
}

// "queued=10 fetched=8 ..." (the user.prefetch attribute) as
// "10 queued, 8 fetched (3072k), 4 used (1024k), 2048k wasted, 0 skipped";
// "" when the client has no such attribute.
std::string PrefetchLine(const std::string& attr) {
  if (attr.empty() || attr == "off") return attr;
  std::map<std::string, std::string> v;
  std::istringstream in(attr);
  std::string field;
  while (in >> field) {
    size_t eq = field.find('=');
    if (eq != std::string::npos) v[field.substr(0, eq)] = field.substr(eq + 1);
  }
  auto kb = [&](const char* key) {
    return std::to_string(std::strtoull(v[key].c_str(), nullptr, 10) / 1024) +
           "k";
  };
  return v["queued"] + " queued, " + v["fetched"] + " fetched (" +
         kb("fetched_bytes") + "), " + v["used"] + " used (" +
         kb("used_bytes") + "), " + kb("wasted_bytes") + " wasted, " +
         v["skipped"] + " skipped";
}

void PrintVerbose(std::ostream& out, std::map<std::string, std::string>& a) {
  out << "Version: " << a["version"] << "\n"
      << "PID: " << a["pid"] << "\n"
      << "Uptime: " << a["uptime"] << " minutes\n"
      << "Memory Usage: " << a["memory"] << "k\n"
      << "File Catalog Revision: " << a["revision"] << " (expires in "
      << a["expires"] << " minutes)\n"
      << "File Catalog ID: " << a["root_hash"] << "\n"
      << "No. Active File Catalogs: " << a["nclg"] << "\n"
      << "Cache Usage: " << a["cache_use"] << "k / " << a["cache_max"] << "k\n"
      << "File Descriptor Usage: " << a["usedfd"] << " / " << a["maxfd"] << "\n"
      << "No. Open Directories: " << a["useddirp"] << "\n"
      << "No. IO Errors: " << a["nioerr"] << "\n"
      << "Connection: " << a["host"] << " through proxy " << a["proxy"]
      << (a["online"] == "1" ? " (online)" : " (offline)") << "\n"
      << "Usage: " << a["nopen"] << " open() calls (hitrate " << a["hitrate"]
      << "%), " << a["ndiropen"] << " opendir() calls\n"
      << "Transfer Statistics: " << a["rx"]
      << "k read, avg. speed: " << a["speed"] << "k/s\n";
  const std::string prefetch = PrefetchLine(a["prefetch"]);
  if (!prefetch.empty()) out << "Prefetch: " << prefetch << "\n";
}

void PrintColumns(std::ostream& out, std::map<std::string, std::string>& a) {
  out << "VERSION PID UPTIME(M) MEM(K) REVISION EXPIRES(M) NOCATALOGS "
         "CACHEUSE(K) CACHEMAX(K) "
         "NOFDUSE NOFDMAX NOIOERR NOOPEN HITRATE(%) RX(K) SPEED(K/S) HOST "
         "PROXY ONLINE\n";
  const char* order[] = {"version",   "pid",     "uptime", "memory",
                         "revision",  "expires", "nclg",   "cache_use",
                         "cache_max", "usedfd",  "maxfd",  "nioerr",
                         "nopen",     "hitrate", "rx",     "speed",
                         "host",      "proxy",   "online"};
  for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); ++i)
    out << (i ? " " : "") << a[order[i]];
  out << "\n";
}

}  // namespace

int RunStat(const ConfigToolEnv& env, const Args& args) {
  bool verbose = false;
  std::vector<std::string> names;
  for (const std::string& a : args) {
    if (a == "-v") {
      verbose = true;
    } else {
      names.push_back(a);
    }
  }
  // This root's mounts only (root_mounts.h).
  std::vector<CvmfsMount> mounts;
  for (const RootMount& m : MountsOfRoot(MountedRepositories(env), env.paths))
    mounts.push_back(m.mount);
  if (names.empty()) {
    for (const CvmfsMount& m : mounts) {
      *env.out << "\nRunning cvmfs_config stat " << m.fqrn << ":\n";
      auto a = Collect(m);
      verbose ? PrintVerbose(*env.out, a) : PrintColumns(*env.out, a);
    }
    return 0;
  }
  auto global = LoadGlobalOptions(env.paths);
  int rc = 0;
  for (const std::string& name : names) {
    const std::string fqrn = global.ok() ? MakeFqrn(name, *global) : name;
    const CvmfsMount* found = nullptr;
    for (const CvmfsMount& m : mounts)
      if (m.responsive && m.fqrn == fqrn) found = &m;
    if (!found) {
      *env.out << fqrn << " not mounted\n";
      rc = 1;
      continue;
    }
    auto a = Collect(*found);
    verbose ? PrintVerbose(*env.out, a) : PrintColumns(*env.out, a);
  }
  return rc;
}

}  // namespace cvmfs::tools
