#include "client/geo_probe.h"

#include <random>

#include "cvmfs/file_util.h"
#include "cvmfs/network/geo_sort.h"
#include "cvmfs/text.h"

namespace cvmfs::client {
namespace {

bool IsUuid(std::string_view s) {
  return s.size() == 36 &&
         s.find_first_not_of("0123456789abcdef-") == std::string_view::npos;
}

std::string NewUuid() {
  auto text = ReadFile("/proc/sys/kernel/random/uuid");
  if (text.ok() && IsUuid(Trim(*text))) return std::string(Trim(*text));
  // Without /proc: a version 4 UUID from the random device.
  std::random_device device;
  std::string out;
  const char* hex = "0123456789abcdef";
  for (int i = 0; i < 32; ++i) {
    if (i == 8 || i == 12 || i == 16 || i == 20) out += '-';
    unsigned nibble = device() & 15u;
    if (i == 12) nibble = 4;
    if (i == 16) nibble = 8 | (nibble & 3u);
    out += hex[nibble];
  }
  return out;
}

}  // namespace

std::string CacheUuid(const std::string& cache_dir) {
  const std::string path = JoinPath(cache_dir, "uuid");
  auto text = ReadFile(path);
  if (text.ok() && IsUuid(Trim(*text))) return std::string(Trim(*text));
  const std::string uuid = NewUuid();
  (void)WriteFileAtomic(path, uuid + "\n");
  return uuid;
}

Status ProbeGeo(HttpFetcher* http, const GeoProbeOptions& options,
                const EventLog& log) {
  const std::vector<std::string> hosts = http->Hosts();
  if (hosts.size() < 2) return Status::Ok();
  GeoSortOptions sort;
  sort.proxy_template = options.proxy_template;
  sort.direct_name = CacheUuid(options.cache_dir);
  sort.seed = std::random_device()();
  sort.on_failure = [&log](const std::string& what) {
    log(Severity::kWarning, what);
  };
  auto sorted = GeoSortHosts(http, hosts, sort);
  if (!sorted.ok()) {
    log(Severity::kWarning, sorted.status().message());
    return sorted.status();
  }
  CVMFS_RETURN_IF_ERROR(http->SetHosts(sorted->hosts, /*geo_ordered=*/true));
  std::string order;
  for (const std::string& h : sorted->hosts)
    order += (order.empty() ? "" : ";") + h;
  log(Severity::kInfo,
      "geographic order of servers retrieved from " + sorted->answered_by);
  log(Severity::kDebug, "order is " + order);
  return Status::Ok();
}

}  // namespace cvmfs::client
