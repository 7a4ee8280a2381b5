#include "client/talk/talk_reports.h"

#include <algorithm>
#include <map>

#include "client/catalog_set.h"
#include "cvmfs/config/url_lists.h"

namespace cvmfs::client {

namespace {

std::string Megabytes(uint64_t bytes) {
  return std::to_string(bytes / (1024 * 1024)) + "MB (" +
         std::to_string(bytes) + " Bytes)";
}

std::string Join(const std::vector<std::string>& items,
                 const std::string& sep) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) out += (i ? sep : "") + items[i];
  return out;
}

int Depth(const MountedCatalog* c) {
  int depth = 0;
  for (const MountedCatalog* p = c->parent(); p != nullptr; p = p->parent())
    ++depth;
  return depth;
}

}  // namespace

std::string FormatCacheSize(const cache::PosixCache::Usage& usage) {
  return "Current cache size is " + Megabytes(usage.size) +
         ", pinned: " + Megabytes(usage.pinned) + "\n";
}

std::string FormatHostInfo(const std::vector<std::string>& hosts,
                           const std::string& current, bool geo_ordered) {
  if (hosts.empty()) return "No hosts defined\n";
  std::string out;
  size_t active = 0;
  for (size_t i = 0; i < hosts.size(); ++i) {
    out += "  [" + std::to_string(i) + "] " + hosts[i] +
           (geo_ordered ? " (geographically ordered)\n" : " (unprobed)\n");
    if (hosts[i] == current) active = i;
  }
  return out + "Active host " + std::to_string(active) + ": " + hosts[active] +
         "\n";
}

std::string FormatProxyInfo(const HttpFetcher::ProxyChainInfo& info) {
  if (info.groups.empty()) return "No proxies defined\n";
  std::string out = "Load-balance groups:\n";
  size_t active = 0;
  for (size_t g = 0; g < info.groups.size(); ++g) {
    std::vector<std::string> shown;
    for (const ProxyEntry& e : info.groups[g]) {
      shown.push_back(e.Describe(info.now));
      if (e.url == info.current) active = g;
    }
    out += "[" + std::to_string(g) + "] " + Join(shown, ", ") + "\n";
  }
  out +=
      "Active proxy: [" + std::to_string(active) + "] " + info.current + "\n";
  if (info.first_fallback < info.groups.size())
    out +=
        "First fallback group: [" + std::to_string(info.first_fallback) + "]\n";
  return out;
}

std::string FormatCatalogHierarchy(
    const std::vector<const MountedCatalog*>& catalogs) {
  // Parents before children, siblings by mountpoint: sorting by mountpoint
  // does both, since a nested mountpoint extends its parent's.
  std::vector<const MountedCatalog*> sorted = catalogs;
  std::sort(sorted.begin(), sorted.end(),
            [](const MountedCatalog* a, const MountedCatalog* b) {
              return a->mountpoint() < b->mountpoint();
            });
  std::string out;
  for (const MountedCatalog* c : sorted) {
    out += std::string(static_cast<size_t>(Depth(c)) + 1, '-') + "> " +
           (c->mountpoint().empty() ? "/" : c->mountpoint()) + " (revision " +
           std::to_string(c->revision()) + ", hash " + c->hash().ToString() +
           ")\n";
  }
  return out;
}

std::string FormatCounters(const std::vector<Counter>& counters) {
  std::string out = "Name|Value|Description\n";
  for (const Counter& c : counters)
    out += c.name + "|" + std::to_string(c.value) + "|" + c.description + "\n";
  return out;
}

Result<std::vector<std::string>> ParseHostList(const std::string& text,
                                               const std::string& fqrn) {
  std::string org = fqrn.substr(0, fqrn.find('.'));
  CVMFS_ASSIGN_OR_RETURN(auto hosts, ParseServerUrls(text, fqrn, org));
  if (hosts.empty())
    return Status::InvalidArgument("no host in '" + text + "'");
  return hosts;
}

Result<std::vector<std::vector<std::string>>> ParseProxyList(
    const std::string& text) {
  CVMFS_ASSIGN_OR_RETURN(auto groups, ParseProxyGroups(text));
  if (groups.empty())
    return Status::InvalidArgument("no proxy in '" + text + "'");
  return groups;
}

}  // namespace cvmfs::client
