#include "server/squid_config.h"

#include <cctype>

#include "server/config_template.h"

namespace server {
namespace {

using cvmfs::Status;

bool OnlyChars(const std::string& s, const char* extra) {
  if (s.empty()) return false;
  for (unsigned char c : s)
    if (!std::isalnum(c) &&
        std::string(extra).find(static_cast<char>(c)) == std::string::npos)
      return false;
  return true;
}

Status Validate(const SquidConfigOptions& o) {
  if (o.client_networks.empty())
    return Status::InvalidArgument("name at least one client network");
  for (const std::string& net : o.client_networks)
    if (!OnlyChars(net, ".:/"))
      return Status::InvalidArgument("client network '" + net +
                                     "' is not an address or CIDR range");
  for (const std::string& host : o.stratum1_hosts)
    if (!OnlyChars(host, ".-:"))
      return Status::InvalidArgument("Stratum 1 host '" + host +
                                     "' is not a host name or address");
  if (o.cache_dir.empty() || o.cache_dir[0] != '/' ||
      !OnlyChars(o.cache_dir, "/._-"))
    return Status::InvalidArgument("cache directory '" + o.cache_dir +
                                   "' must be an absolute path without spaces");
  if (o.cache_dir_mb == 0 || o.cache_mem_mb == 0)
    return Status::InvalidArgument("cache sizes must be positive");
  return Status::Ok();
}

constexpr char kTemplate[] =
    R"SQUID(# squid.conf for a CernVM-FS site proxy (doc/serving.md).
http_port @PORT@

@ACCESS@
# Catalogs and objects are immutable under their names; files are
# chunked above 4 MiB, but unchunked files can be large.
maximum_object_size 1024 MB
cache_mem @MEM@ MB
maximum_object_size_in_memory 128 KB
cache_dir ufs @DIR@ @DIR_MB@ 16 256

# Many workers starting the same job miss on the same objects at
# once: fetch each only once from the Stratum 1.
collapsed_forwarding on

# Freshness comes from the servers' Cache-Control/Expires (61 s for
# .cvmfspublished, 3 days for data/); cache even the 61-second
# objects, never consider anything without an expiry fresh, and never
# cache a 404 (the object may be published a minute later).
minimum_expiry_time 0
refresh_pattern . 0 0% 0
negative_ttl 0
)SQUID";

std::string Join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += " " + s;
  return out;
}

std::string AccessRules(const SquidConfigOptions& o) {
  std::string rules = "acl cvmfs_workers src" + Join(o.client_networks) + "\n";
  if (o.stratum1_hosts.empty())
    return rules +
           "# To forward only to your Stratum 1s, add e.g.\n"
           "#   acl cvmfs_stratum1 dstdomain s1.example.org\n"
           "# and append cvmfs_stratum1 to the allow line below.\n"
           "http_access allow cvmfs_workers\n"
           "http_access deny all\n";
  return rules + "acl cvmfs_stratum1 dstdomain" + Join(o.stratum1_hosts) +
         "\nhttp_access allow cvmfs_workers cvmfs_stratum1\n"
         "http_access deny all\n";
}

}  // namespace

cvmfs::Result<std::string> SquidConfigFor(const SquidConfigOptions& o) {
  CVMFS_RETURN_IF_ERROR(Validate(o));
  return FillTemplate(kTemplate, {{"PORT", std::to_string(o.port)},
                                  {"ACCESS", AccessRules(o)},
                                  {"MEM", std::to_string(o.cache_mem_mb)},
                                  {"DIR", o.cache_dir},
                                  {"DIR_MB", std::to_string(o.cache_dir_mb)}});
}

}  // namespace server
