#include "server/geo_api.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>
#include <cstring>

#include "cvmfs/text.h"

namespace server {
namespace {

constexpr std::string_view kSeparator = "+PXYSEP+";

GeoAnswer BadRequest(const std::string& reason) {
  return GeoAnswer{400, "Bad Request: " + reason + "\n", 300};
}

// What CVMFS accepts as a name or address (its addr_pattern).
bool IsPlausibleName(std::string_view name) {
  if (name.size() > 256) return false;
  return std::all_of(name.begin(), name.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
           (c >= '0' && c <= '9') || c == '.' || c == ':' || c == '-';
  });
}

std::vector<std::string_view> SplitCommas(std::string_view text) {
  std::vector<std::string_view> out;
  size_t pos = 0;
  for (;;) {
    size_t comma = text.find(',', pos);
    out.push_back(text.substr(pos, comma - pos));
    if (comma == std::string_view::npos) return out;
    pos = comma + 1;
  }
}

// The last address of an X-Forwarded-For list ("a, b" or "a,b"), as CVMFS
// takes it: after the last blank, else after the last comma.
std::string_view LastForwarded(std::string_view list) {
  size_t blank = list.rfind(' ');
  if (blank != std::string_view::npos) return list.substr(blank + 1);
  size_t comma = list.rfind(',');
  return comma == std::string_view::npos ? list : list.substr(comma + 1);
}

}  // namespace

NameResolver SystemResolver() {
  return [](const std::string& name) {
    std::vector<std::string> v4, v6;
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_protocol = IPPROTO_TCP;
    addrinfo* list = nullptr;
    if (getaddrinfo(name.c_str(), "80", &hints, &list) != 0) return v4;
    for (addrinfo* ai = list; ai != nullptr; ai = ai->ai_next) {
      char buf[NI_MAXHOST];
      if (getnameinfo(ai->ai_addr, ai->ai_addrlen, buf, sizeof(buf), nullptr, 0,
                      NI_NUMERICHOST) != 0)
        continue;
      (ai->ai_family == AF_INET ? v4 : v6).push_back(buf);
    }
    freeaddrinfo(list);
    v4.insert(v4.end(), v6.begin(), v6.end());
    return v4;
  };
}

GeoApi::GeoApi(std::unique_ptr<GeoDatabase> database,
               std::optional<LocationTable> table, NameResolver resolver)
    : database_(std::move(database)),
      table_(std::move(table)),
      resolver_(std::move(resolver)) {}

bool GeoApi::IsApiPath(std::string_view path) {
  size_t slash = path.find('/');
  return slash != std::string_view::npos && slash > 0 &&
         path.substr(slash + 1, 4) == "api/";
}

std::optional<GeoPoint> GeoApi::LocateAddress(std::string_view text) const {
  if (!IsPlausibleName(text)) return std::nullopt;
  std::optional<IpAddress> address = IpAddress::Parse(text);
  if (!address) return std::nullopt;
  if (table_) {
    if (auto point = table_->ByAddress(*address)) return point;
  }
  if (database_) return database_->ByAddress(*address);
  return std::nullopt;
}

// CVMFS's order: the first IPv4 address, else the first IPv6 address.
std::optional<GeoPoint> GeoApi::LocateName(std::string_view name) const {
  if (name.empty() || !IsPlausibleName(name)) return std::nullopt;
  if (table_) {
    if (auto point = table_->ByName(name)) return point;
  }
  const std::vector<std::string> addresses = resolver_(std::string(name));
  auto first = [&addresses](bool ipv6) -> const std::string* {
    for (const std::string& a : addresses)
      if ((a.find(':') != std::string::npos) == ipv6) return &a;
    return nullptr;
  };
  if (const std::string* v4 = first(false)) {
    if (auto point = LocateAddress(*v4)) return point;
  }
  if (const std::string* v6 = first(true)) return LocateAddress(*v6);
  return std::nullopt;
}

std::optional<GeoPoint> GeoApi::LocateRequester(
    std::string_view proxy, const GeoRequest& request) const {
  if (auto point = LocateName(proxy)) return point;
  if (request.cf_connecting_ip) {
    if (auto point = LocateAddress(*request.cf_connecting_ip)) return point;
  }
  if (request.forwarded_for) {
    if (auto point = LocateAddress(LastForwarded(*request.forwarded_for)))
      return point;
  }
  return LocateAddress(request.remote_address);
}

GeoAnswer GeoApi::Answer(const GeoRequest& request) const {
  // "<fqrn>/api/v<version>/<function>/<path_info>"
  std::string_view rest = request.path;
  size_t slash = rest.find('/');
  if (!IsApiPath(rest)) return BadRequest("malformed api URL");
  rest.remove_prefix(slash + 5);
  const size_t v_end = rest.find('/');
  const size_t f_end =
      v_end == std::string_view::npos ? v_end : rest.find('/', v_end + 1);
  if (rest.empty() || rest[0] != 'v' || f_end == std::string_view::npos)
    return BadRequest("malformed api URL: /" + std::string(request.path));
  if (rest.substr(v_end + 1, f_end - v_end - 1) != "geo")
    return BadRequest("unrecognized api function");
  return Sort(rest.substr(f_end + 1), request);
}

GeoAnswer GeoApi::Sort(std::string_view path_info,
                       const GeoRequest& request) const {
  const size_t slash = path_info.find('/');
  if (slash == std::string_view::npos)
    return BadRequest("no slash in geo path");
  const std::vector<std::string_view> names =
      SplitCommas(path_info.substr(slash + 1));
  std::optional<GeoPoint> origin =
      LocateRequester(path_info.substr(0, slash), request);
  if (!origin) return BadRequest("remote addr not found in database");

  // Through Cloudflare, the servers probably are too: "ip.<name>" first.
  const bool try_cdn = request.cf_connecting_ip.has_value();
  auto locate_all = [&](size_t begin, size_t end, bool cdn) {
    std::vector<std::optional<GeoPoint>> points;
    for (size_t i = begin; i < end; ++i) {
      std::optional<GeoPoint> p;
      if (cdn) p = LocateName("ip." + std::string(names[i]));
      if (!p) p = LocateName(names[i]);
      points.push_back(p);
    }
    return points;
  };
  auto any = [](const std::vector<std::optional<GeoPoint>>& points) {
    return std::any_of(points.begin(), points.end(),
                       [](const auto& p) { return p.has_value(); });
  };

  std::vector<size_t> order;
  const auto sep = std::find(names.begin(), names.end(), kSeparator);
  if (sep == names.end()) {
    auto points = locate_all(0, names.size(), try_cdn);
    if (!any(points)) return BadRequest("no server addr found in database");
    order = OrderByDistance(*origin, points);
  } else {
    // Fallback proxies after the separator: sort them from the requester,
    // then the servers from the closest of them; the separator's own index
    // comes last, so the answer has one number per name.
    const size_t at = static_cast<size_t>(sep - names.begin());
    auto proxies = locate_all(at + 1, names.size(), false);
    std::vector<size_t> proxy_order = OrderByDistance(*origin, proxies);
    if (any(proxies)) origin = proxies[proxy_order.front()];
    auto servers = locate_all(0, at, try_cdn);
    if (!any(servers)) return BadRequest("no server addr found in database");
    order = OrderByDistance(*origin, servers);
    for (size_t i : proxy_order) order.push_back(at + 1 + i);
    order.push_back(at);
  }
  std::string body;
  for (size_t i : order)
    body += (body.empty() ? "" : ",") + std::to_string(i + 1);
  return GeoAnswer{200, body + "\n", 3600};
}

}  // namespace server
