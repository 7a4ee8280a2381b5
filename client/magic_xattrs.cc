#include "client/magic_xattrs.h"

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <string_view>

namespace cvmfs::client {

namespace {

// kExternal: regular files flagged external.
enum class Applies { kAll, kRegular, kSymlink, kExternal };

struct Attr {
  const char* name;  // without "user."
  Applies applies;
};

// In the order `listxattr` reports them.
constexpr Attr kAttrs[] = {
    {"chunks", Applies::kRegular},
    {"compression", Applies::kRegular},
    {"direct_io", Applies::kRegular},
    {"expires", Applies::kAll},
    {"external_file", Applies::kRegular},
    {"external_host", Applies::kAll},
    {"external_timeout", Applies::kAll},
    {"external_url", Applies::kExternal},
    {"fqrn", Applies::kAll},
    {"hash", Applies::kRegular},
    {"hitrate", Applies::kAll},
    {"host", Applies::kAll},
    {"host_list", Applies::kAll},
    {"inode_max", Applies::kAll},
    {"nclg", Applies::kAll},
    {"ndiropen", Applies::kAll},
    {"ndownload", Applies::kAll},
    {"nioerr", Applies::kAll},
    {"nopen", Applies::kAll},
    {"pid", Applies::kAll},
    {"prefetch", Applies::kAll},
    {"proxy", Applies::kAll},
    {"proxy_list", Applies::kAll},
    {"proxy_list_external", Applies::kAll},
    {"rawlink", Applies::kSymlink},
    {"revision", Applies::kAll},
    {"root_hash", Applies::kAll},
    {"rx", Applies::kAll},
    {"speed", Applies::kAll},
    {"tag", Applies::kAll},
    {"timeout", Applies::kAll},
    {"timeout_direct", Applies::kAll},
    {"uptime", Applies::kAll},
    {"usedfd", Applies::kAll},
    {"version", Applies::kAll},
};

bool AppliesTo(Applies a, const DirectoryEntry& e) {
  switch (a) {
    case Applies::kAll:
      return true;
    case Applies::kRegular:
      return e.IsRegular();
    case Applies::kSymlink:
      return e.IsSymlink();
    case Applies::kExternal:
      return e.IsRegular() && e.external;
  }
  return false;
}

std::string Percent(uint64_t part, uint64_t whole) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.3f",
                whole == 0 ? 0.0 : 100.0 * double(part) / double(whole));
  return buf;
}

// The magic attribute called `name` ("user.hash"), or null. Asked for
// every attribute an entry does not carry: no allocation.
const Attr* FindAttr(std::string_view name) {
  constexpr std::string_view kPrefix = "user.";
  if (name.substr(0, kPrefix.size()) != kPrefix) return nullptr;
  for (const Attr& a : kAttrs)
    if (name.substr(kPrefix.size()) == a.name) return &a;
  return nullptr;
}

}  // namespace

bool MagicXattrs::IsMagic(const std::string& name) {
  return FindAttr(name) != nullptr;
}

bool MagicXattrs::Shadows(const std::string& name,
                          const DirectoryEntry& entry) {
  const Attr* attr = FindAttr(name);
  return attr != nullptr && AppliesTo(attr->applies, entry);
}

Result<std::string> MagicXattrs::Lookup(const std::string& name) const {
  if (Shadows(name, info_.entry)) return Get(name);
  for (const auto& [key, value] : info_.entry.xattrs.entries)
    if (key == name) return value;
  return Status::NotFound(name);
}

std::vector<std::string> MagicXattrs::List(const DirectoryEntry& entry,
                                           bool hide_magic) {
  std::vector<std::string> names;
  for (const auto& [key, value] : entry.xattrs.entries)
    if (!Shadows(key, entry)) names.push_back(key);
  if (hide_magic) return names;
  for (std::string& n : Names(entry)) names.push_back(std::move(n));
  return names;
}

std::vector<std::string> MagicXattrs::Names(const DirectoryEntry& entry) {
  std::vector<std::string> names;
  for (const Attr& a : kAttrs)
    if (AppliesTo(a.applies, entry))
      names.push_back(std::string("user.") + a.name);
  return names;
}

Result<std::string> MagicXattrs::Get(const std::string& full_name) const {
  const Attr* attr = FindAttr(full_name);
  if (!attr || !AppliesTo(attr->applies, info_.entry))
    return Status::NotFound(full_name);
  const std::string name = attr->name;

  if (auto value = EntryValue(name)) return std::move(*value);
  const MountStatistics stats = stats_();
  if (name == "external_url") {
    // Where the file is fetched from now: the current external server and
    // the file's path, as CVMFS shows it.
    const std::string host =
        stats.network ? stats.network->external_host() : std::string();
    return host + info_.path;
  }
  return MountValue(name, stats);
}

std::optional<Result<std::string>> MagicXattrs::EntryValue(
    const std::string& name) const {
  const DirectoryEntry& e = info_.entry;
  if (name == "version") return std::string(kClientVersion);
  if (name == "pid") return std::to_string(::getpid());
  if (name == "hash")
    return e.content_hash ? e.content_hash->ToString() : std::string();
  if (name == "chunks") {
    if (!e.chunked) return std::string("1");
    auto chunks =
        info_.catalog->With([&](Catalog& c) { return c.Chunks(info_.path); });
    if (!chunks.ok()) return Result<std::string>(chunks.status());
    return std::to_string(chunks->size());
  }
  if (name == "compression")
    return std::string(e.compression == Compression::kZlib ? "zlib" : "none");
  if (name == "direct_io") return std::string(e.direct_io ? "1" : "0");
  if (name == "external_file") return std::string(e.external ? "1" : "0");
  if (name == "rawlink") return e.symlink;
  return std::nullopt;
}

Result<std::string> MagicXattrs::MountValue(const std::string& name,
                                            const MountStatistics& stats) {
  const MountedRevision& rev = stats.revision;
  const FetchCounters& counters = stats.fetch;
  const NetworkView* net = stats.network;
  const int64_t uptime_s =
      std::chrono::duration_cast<std::chrono::seconds>(stats.uptime).count();
  if (name == "fqrn") return stats.fqrn;
  if (name == "revision") return std::to_string(rev.revision);
  if (name == "root_hash") return rev.root_hash.ToString();
  if (name == "tag") return stats.tag;
  if (name == "host") return net ? net->host() : std::string("internal");
  if (name == "proxy") return net ? net->proxy() : std::string("DIRECT");
  if (name == "host_list") return net ? net->host_list() : std::string();
  if (name == "proxy_list") return net ? net->proxy_list() : std::string();
  if (name == "timeout") return std::to_string(net ? net->timeout() : 0);
  if (name == "timeout_direct")
    return std::to_string(net ? net->timeout_direct() : 0);
  if (name == "external_host") {
    const std::string host = net ? net->external_host() : std::string();
    return host.empty() ? std::string("internal error: no hosts defined")
                        : host;
  }
  // CVMFS shows the timeout without a proxy here.
  if (name == "external_timeout")
    return std::to_string(net ? net->external_timeout_direct() : 0);
  if (name == "proxy_list_external")
    return net ? net->external_proxy_list() : std::string("DIRECT\n");
  if (name == "nclg") return std::to_string(stats.catalogs);
  if (name == "ndiropen") return std::to_string(stats.open_dirs);
  if (name == "nopen") return std::to_string(stats.total_opens);
  if (name == "usedfd") return std::to_string(stats.open_files);
  if (name == "ndownload") return std::to_string(counters.downloads);
  if (name == "nioerr") return std::to_string(stats.io_errors);
  if (name == "rx") return std::to_string(counters.bytes_downloaded / 1024);
  if (name == "speed") {
    // KiB/s over the time the downloads took (CVMFS: average speed).
    const double seconds = static_cast<double>(counters.download_ns) / 1e9;
    if (seconds <= 0) return std::string("0");
    return std::to_string(static_cast<uint64_t>(
        static_cast<double>(counters.bytes_downloaded) / 1024 / seconds));
  }
  if (name == "hitrate")
    return Percent(counters.hits, counters.hits + counters.downloads);
  if (name == "inode_max") return std::to_string(stats.inode_max);
  if (name == "prefetch") return PrefetchSummary(stats.prefetch);
  if (name == "uptime") return std::to_string(uptime_s / 60);
  if (name == "expires") {
    // Minutes until the revision is checked again (CVMFS: until the
    // catalog's TTL runs out, counted from the last check).
    int64_t left = stats.seconds_until_check
                       ? *stats.seconds_until_check
                       : static_cast<int64_t>(rev.manifest.ttl) - uptime_s;
    return std::to_string(left > 0 ? left / 60 : 0);
  }
  return Status::NotFound("user." + name);
}

// "queued=Q fetched=F fetched_bytes=B used=U used_bytes=V wasted_bytes=W
// skipped=S" (doc/client.md, "Prefetch"); `cvmfs_config stat -v` shows it.
std::string MagicXattrs::PrefetchSummary(const PrefetchCounters& c) {
  if (!c.enabled) return "off";
  return "queued=" + std::to_string(c.queued) +
         " fetched=" + std::to_string(c.fetched) +
         " fetched_bytes=" + std::to_string(c.fetched_bytes) +
         " used=" + std::to_string(c.used) +
         " used_bytes=" + std::to_string(c.used_bytes) +
         " wasted_bytes=" + std::to_string(c.wasted_bytes) +
         " skipped=" + std::to_string(c.skipped_budget + c.skipped_throttled);
}

}  // namespace cvmfs::client
