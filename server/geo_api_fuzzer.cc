// Fuzz target: the Geo-API (geo_api.h) with a location table
// (geo_location_table.h), both from the input: the text before the first
// NUL byte is the table, the rest the request path after "/cvmfs/". Names
// resolve to themselves when they are addresses (as getaddrinfo), else not.
// A 200 answer must be what the client accepts (ParseGeoReply,
// cvmfs/network/geo_sort.h) for as many servers as the path lists; a 400
// must say "Bad Request: ".
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cvmfs/network/geo_sort.h"
#include "server/geo_api.h"

namespace {

void Check(bool ok, const char* what, const std::string& body) {
  if (ok) return;
  fprintf(stderr, "property violated: %s (body '%s')\n", what, body.c_str());
  abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view input(reinterpret_cast<const char*>(data), size);
  const size_t nul = input.find('\0');
  if (nul == std::string_view::npos) return 0;
  auto table = server::LocationTable::Parse(input.substr(0, nul), "fuzz");
  if (!table.ok()) return 0;
  server::GeoApi api(nullptr, std::move(*table), [](const std::string& name) {
    if (server::IpAddress::Parse(name)) return std::vector<std::string>{name};
    return std::vector<std::string>();
  });
  server::GeoRequest request;
  request.path = input.substr(nul + 1);
  request.remote_address = "192.0.2.1";
  request.forwarded_for = "198.51.100.1";
  const server::GeoAnswer answer = api.Answer(request);
  if (answer.status == 400) {
    Check(answer.body.rfind("Bad Request: ", 0) == 0, "400 body", answer.body);
    return 0;
  }
  Check(answer.status == 200, "status is 200 or 400", answer.body);
  // "<fqrn>/api/<version>/geo/<proxy>/<list>": the list follows the fifth
  // slash and may contain more.
  size_t pos = 0;
  for (int i = 0; i < 5; ++i) pos = request.path.find('/', pos) + 1;
  const std::string_view list = request.path.substr(pos);
  size_t names = 1;
  for (char c : list) names += c == ',';
  Check(cvmfs::ParseGeoReply(answer.body, names).ok(),
        "the client accepts the answer", answer.body);
  return 0;
}
