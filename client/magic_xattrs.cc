#include "client/magic_xattrs.h"

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <ctime>
#include <string_view>

namespace cvmfs::client {

namespace {

// kExternal: regular files flagged external.
enum class Applies { kAll, kRegular, kSymlink, kExternal };

struct Attr {
  const char* name;  // without "user."
  Applies applies;
};

// In the order `listxattr` reports them (CVMFS's: by name).
constexpr Attr kAttrs[] = {
    {"catalog_counters", Applies::kAll},
    {"chunk_list", Applies::kRegular},
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
    {"lhash", Applies::kRegular},
    {"logbuffer", Applies::kAll},
    {"maxfd", Applies::kAll},
    {"ncleanup24", Applies::kAll},
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
    {"pubkeys", Applies::kAll},
    {"rawlink", Applies::kSymlink},
    {"repo_counters", Applies::kAll},
    {"repo_metainfo", Applies::kAll},
    {"revision", Applies::kAll},
    {"root_hash", Applies::kAll},
    {"rx", Applies::kAll},
    {"speed", Applies::kAll},
    {"tag", Applies::kAll},
    {"timeout", Applies::kAll},
    {"timeout_direct", Applies::kAll},
    {"timestamp_last_ioerr", Applies::kAll},
    {"uptime", Applies::kAll},
    {"usedfd", Applies::kAll},
    {"useddirp", Applies::kAll},
    {"version", Applies::kAll},
};

// CVMFS keeps this many descriptors for itself (user.maxfd).
constexpr int64_t kReservedFds = 512;
// CVMFS refuses larger metainfo objects (user.repo_metainfo).
constexpr size_t kMaxMetainfoBytes = 65536;

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

// CVMFS's StringifyDouble ("%.03f").
std::string Decimal(double value) {
  char buf[32];
  std::snprintf(buf, sizeof(buf), "%.03f", value);
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

// "user.x~3" / "user.x@?": the base name, the page (-1 for '?') and
// whether it is the human-readable form; nullopt without a suffix, or a
// page of -2 for a malformed one.
struct PageRequest {
  std::string base;
  int64_t page = 0;
  bool human = false;
};
std::optional<PageRequest> ParsePageRequest(const std::string& name) {
  size_t at = name.rfind('@');
  size_t tilde = name.rfind('~');
  const bool human = at != std::string::npos;
  const size_t cut = human ? at : tilde;
  if (cut == std::string::npos) return std::nullopt;
  PageRequest r{name.substr(0, cut), -2, human};
  const std::string token = name.substr(cut + 1);
  if (token == "?") {
    r.page = -1;
  } else if (!token.empty() &&
             token.find_first_not_of("0123456789") == std::string::npos &&
             token.size() < 10) {
    r.page = std::stoll(token);
  }
  return r;
}

Result<std::string> SelectPage(const std::vector<std::string>& pages,
                               const PageRequest& r, const std::string& name) {
  const std::string n = std::to_string(pages.size());
  if (r.page == -2) return Status::NotFound(name);
  if (!r.human) {
    if (r.page == -1) return "num_pages, " + n;
    if (static_cast<size_t>(r.page) >= pages.size())
      return Status::NotFound(name);
    return pages[r.page];
  }
  if (r.page == -1) {
    return "Access xattr with xattr~<page_num> (machine-readable mode) or "
           " xattr@<page_num> (human-readable mode).\nPages available: " +
           n;
  }
  if (static_cast<size_t>(r.page) >= pages.size()) {
    return "Page requested does not exists. There are " + n +
           " pages available.\nAccess them with xattr~<page_num> "
           "(machine-readable mode) or xattr@<page_num> (human-readable "
           "mode).\nUse xattr@? or xattr~? to get extra info about the "
           "attribute";
  }
  return "# Access page at idx: " + std::to_string(r.page) +
         ". Total num pages: " + n +
         " (access other pages: xattr~<page_num>, starting  with 0; number "
         "of pages available: xattr~?)\n" +
         pages[r.page];
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

Result<std::string> MagicXattrs::Lookup(const std::string& name,
                                        std::optional<gid_t> gid) const {
  std::optional<PageRequest> paged;
  if (!Shadows(name, info_.entry)) {
    paged = ParsePageRequest(name);
    if (paged && !Shadows(paged->base, info_.entry)) paged.reset();
  }
  if (paged || Shadows(name, info_.entry)) {
    const std::string& base = paged ? paged->base : name;
    if (sources_.options &&
        !sources_.options->xattr_protection.Allows(base, gid))
      return Status::NotFound(name + " (protected)");
    CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> pages,
                           Pages(FindAttr(base)->name));
    return SelectPage(pages, paged.value_or(PageRequest{base, 0, false}), name);
  }
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
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> pages, Pages(attr->name));
  if (pages.empty()) return Status::NotFound(full_name);
  return pages[0];
}

Result<std::vector<std::string>> MagicXattrs::Pages(
    const std::string& name) const {
  if (auto pages = EntryPages(name)) return std::move(*pages);
  if (auto pages = SourcedPages(name)) return std::move(*pages);
  if (!sources_.stats) return Status::NotFound("user." + name);
  const MountStatistics stats = sources_.stats();
  if (name == "external_url") {
    // Where the file is fetched from now: the current external server and
    // the file's path, as CVMFS shows it.
    const std::string host =
        stats.network ? stats.network->external_host() : std::string();
    return std::vector<std::string>{host + info_.path};
  }
  CVMFS_ASSIGN_OR_RETURN(std::string value, MountValue(name, stats));
  return std::vector<std::string>{std::move(value)};
}

std::optional<Result<std::vector<std::string>>> MagicXattrs::EntryPages(
    const std::string& name) const {
  using Pages = std::vector<std::string>;
  const DirectoryEntry& e = info_.entry;
  if (name == "version") return Pages{kClientVersion};
  if (name == "pid") return Pages{std::to_string(::getpid())};
  if (name == "hash")
    return Pages{e.content_hash ? e.content_hash->ToString() : std::string()};
  if (name == "chunks") {
    if (!e.chunked) return Pages{"1"};
    auto chunks = info_.catalog->Chunks(info_.path);
    if (!chunks.ok()) return Result<Pages>(chunks.status());
    return Pages{std::to_string(chunks->size())};
  }
  if (name == "chunk_list") return ChunkListPages();
  if (name == "compression")
    return Pages{e.compression == Compression::kZlib ? "zlib" : "none"};
  if (name == "direct_io") return Pages{e.direct_io ? "1" : "0"};
  if (name == "external_file") return Pages{e.external ? "1" : "0"};
  if (name == "rawlink") return Pages{e.symlink};
  if (name == "maxfd") {
    rlimit rl{};
    ::getrlimit(RLIMIT_NOFILE, &rl);
    return Pages{
        std::to_string(static_cast<int64_t>(rl.rlim_cur) - kReservedFds)};
  }
  if (name == "catalog_counters") {
    // The catalog CVMFS names: for a nested mountpoint, the nested one.
    if (!info_.set) return Result<Pages>(Status::NotFound(name));
    auto catalog = info_.set->CatalogFor(info_.path);
    if (!catalog.ok()) return Result<Pages>(catalog.status());
    return Pages{"catalog_hash: " + (*catalog)->hash().ToString() +
                 "\ncatalog_mountpoint: " + (*catalog)->mountpoint() + "\n" +
                 CountersCsv((*catalog)->counters())};
  }
  if (name == "repo_counters") {
    if (!info_.set) return Result<Pages>(Status::NotFound(name));
    return Pages{CountersCsv(info_.set->root()->counters())};
  }
  return std::nullopt;
}

// "hash,offset,size\n" then a line per chunk (the whole file for an
// unchunked one); a new page, with the header again, after kMaxPageChars.
std::vector<std::string> MagicXattrs::ChunkListPages() const {
  const std::string header = "hash,offset,size\n";
  const DirectoryEntry& e = info_.entry;
  std::vector<std::string> pages;
  std::string page = header;
  auto line = [&](const Digest& hash, uint64_t offset, uint64_t size) {
    page += hash.ToString() + "," + std::to_string(offset) + "," +
            std::to_string(size) + "\n";
    if (page.size() > kMaxPageChars) {
      pages.push_back(std::move(page));
      page = header;
    }
  };
  if (!e.chunked) {
    line(e.content_hash.value_or(Digest()), 0, e.size);
  } else {
    auto chunks = info_.catalog->Chunks(info_.path);
    if (chunks.ok())
      for (const FileChunk& c : *chunks) line(c.hash, c.offset, c.size);
  }
  if (page.size() > header.size()) pages.push_back(std::move(page));
  return pages;
}

std::optional<Result<std::vector<std::string>>> MagicXattrs::SourcedPages(
    const std::string& name) const {
  using Pages = std::vector<std::string>;
  const FileSystemOptions* options = sources_.options;
  if (name == "pubkeys") {
    // Whole keys per page, as CVMFS; no keys, no page.
    Pages pages;
    std::string page;
    for (const std::string& key : options ? options->public_keys : Pages()) {
      if (!page.empty() && page.size() + key.size() >= kMaxPageChars)
        pages.push_back(std::move(page)), page.clear();
      page += key;
    }
    if (!page.empty()) pages.push_back(std::move(page));
    return pages;
  }
  if (name == "ncleanup24")
    return Pages{std::to_string(sources_.cleanups_24h ? sources_.cleanups_24h()
                                                      : int64_t{-1})};
  if (name == "logbuffer")
    return Pages{options && options->log_buffer ? options->log_buffer() : ""};
  if (name == "lhash") {
    const DirectoryEntry& e = info_.entry;
    if (!e.content_hash || !sources_.cached_hash)
      return Result<Pages>(Status::NotFound(name));
    auto local = sources_.cached_hash(*e.content_hash);
    if (!local.ok())
      return Pages{"I/O error (" + local.status().message() + ")"};
    return Pages{*local ? (*local)->ToString() : "Not in cache"};
  }
  if (name == "repo_metainfo") {
    if (!sources_.stats) return Result<Pages>(Status::NotFound(name));
    const std::optional<Digest> hash =
        sources_.stats().revision.manifest.metainfo;
    if (!hash) return Pages{"metainfo not available"};
    if (!sources_.read_object) return Pages{"Failed to open metadata file"};
    auto text = sources_.read_object(*hash);
    if (!text.ok()) return Pages{"Failed to open metadata file"};
    if (text->size() > kMaxMetainfoBytes)
      return Pages{"Failed to open: metadata file is too big"};
    return Pages{std::move(*text)};
  }
  return std::nullopt;
}

std::string MagicXattrs::CountersCsv(const CatalogCounters& counters) {
  const CounterSet total = counters.Total();
  std::string csv;
  for (const CounterField& f : kCounterFields)
    csv += std::string(f.name) + "," + std::to_string(total.*f.member) + "\n";
  return csv;
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
  // CVMFS: ndiropen counts opendir() calls, useddirp the directories open.
  if (name == "ndiropen") return std::to_string(stats.total_dir_opens);
  if (name == "useddirp") return std::to_string(stats.open_dirs);
  if (name == "nopen") return std::to_string(stats.total_opens);
  if (name == "usedfd") return std::to_string(stats.open_files);
  if (name == "ndownload") return std::to_string(counters.downloads);
  if (name == "nioerr") return std::to_string(stats.io_errors);
  if (name == "timestamp_last_ioerr") {
    // Seconds since the epoch, 0 if there was none (CVMFS).
    if (!stats.last_io_error) return std::string("0");
    const auto ago = stats.uptime - *stats.last_io_error;
    return std::to_string(
        static_cast<int64_t>(::time(nullptr)) -
        std::chrono::duration_cast<std::chrono::seconds>(ago).count());
  }
  if (name == "rx") return std::to_string(counters.bytes_downloaded / 1024);
  if (name == "speed") {
    // KiB/s over the time the downloads took (CVMFS: "n/a" before any).
    const double seconds = static_cast<double>(counters.download_ns) / 1e9;
    if (seconds <= 0) return std::string("n/a");
    return std::to_string(static_cast<uint64_t>(
        static_cast<double>(counters.bytes_downloaded) / 1024 / seconds));
  }
  if (name == "hitrate") {
    const uint64_t asked = counters.hits + counters.downloads;
    if (asked == 0) return std::string("n/a");
    return Decimal(100.0 * double(counters.hits) / double(asked));
  }
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
