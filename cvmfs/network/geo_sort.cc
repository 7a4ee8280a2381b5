#include "cvmfs/network/geo_sort.h"

#include <algorithm>
#include <numeric>
#include <random>

#include "cvmfs/network/string_sink.h"
#include "cvmfs/network/url_host.h"
#include "cvmfs/text.h"

namespace cvmfs {
namespace {
// An answer is a few bytes per server; anything longer is not one.
constexpr size_t kMaxReply = 64 * 1024;
}  // namespace

Result<std::vector<size_t>> ParseGeoReply(std::string_view reply,
                                          size_t expected) {
  if (reply.find_first_not_of("0123456789, \n") != std::string_view::npos)
    return Status::InvalidArgument(
        "answer has characters other than digits, commas and blanks");
  std::string flat(reply);
  flat.erase(std::remove(flat.begin(), flat.end(), '\n'), flat.end());
  std::vector<size_t> order;
  std::vector<bool> seen(expected);
  size_t pos = 0;
  for (;;) {
    const size_t comma = std::min(flat.find(',', pos), flat.size());
    std::string_view item =
        Trim(std::string_view(flat).substr(pos, comma - pos), " ");
    std::optional<uint64_t> n = ParseUint64(item, 9);
    if (!n) return Status::InvalidArgument("answer has an empty or bad number");
    if (*n < 1 || *n > expected || seen[*n - 1])
      return Status::InvalidArgument("answer is not a permutation of 1 to " +
                                     std::to_string(expected));
    seen[*n - 1] = true;
    order.push_back(*n - 1);
    if (comma == flat.size()) break;
    pos = comma + 1;
  }
  if (order.size() != expected)
    return Status::InvalidArgument(
        "answer has " + std::to_string(order.size()) + " numbers for " +
        std::to_string(expected) + " servers");
  return order;
}

Result<GeoSorted> GeoSortHosts(Fetcher* fetcher,
                               const std::vector<std::string>& hosts,
                               const GeoSortOptions& options) {
  if (hosts.size() < 2) return GeoSorted{hosts, ""};
  // The names in alphabetical order, the URLs alike.
  std::vector<std::string> urls = hosts;
  std::stable_sort(urls.begin(), urls.end(),
                   [](const std::string& a, const std::string& b) {
                     return UrlHostName(a) < UrlHostName(b);
                   });
  std::string list;
  for (const std::string& url : urls) {
    const std::string name = UrlHostName(url);
    list += (list.empty() ? "" : ",") + (name.empty() ? url : name);
  }
  const std::string proxy =
      options.proxy_template.empty() ? "@proxy@" : options.proxy_template;

  std::vector<std::string> asked = hosts;
  std::mt19937 prng(options.seed);
  std::shuffle(asked.begin(), asked.end(), prng);
  asked.resize(std::min(asked.size(), kGeoMaxAttempts));
  for (const std::string& server : asked) {
    DownloadRequest request;
    request.host = server;
    request.url_path = "api/v1.0/geo/" + proxy + "/" + list;
    request.direct_proxy_name = options.direct_name;
    StringSink sink(kMaxReply);
    DownloadResult result = fetcher->Fetch(request, &sink);
    const std::string what = server + "/" + request.url_path;
    if (!result.status.ok()) {
      if (options.on_failure)
        options.on_failure("Geo-API request " + what +
                           " failed: " + result.status.message());
      continue;
    }
    auto order = ParseGeoReply(sink.body(), urls.size());
    if (!order.ok()) {
      if (options.on_failure)
        options.on_failure("invalid Geo-API reply from " + what + " [" +
                           std::string(Trim(sink.body())) +
                           "]: " + order.status().message());
      continue;
    }
    GeoSorted sorted;
    for (size_t i : *order) sorted.hosts.push_back(urls[i]);
    sorted.answered_by = UrlHostName(server);
    return sorted;
  }
  return Status::Unavailable(
      "failed to retrieve geographic order from stratum 1 servers");
}

}  // namespace cvmfs
