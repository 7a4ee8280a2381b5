#include "server/geo_database.h"

#include <arpa/inet.h>
#include <maxminddb.h>
#include <netinet/in.h>

#include <cstring>

namespace server {

struct GeoDatabase::Handle {
  MMDB_s mmdb{};
  ~Handle() { MMDB_close(&mmdb); }
};

GeoDatabase::GeoDatabase(std::unique_ptr<Handle> handle)
    : handle_(std::move(handle)) {}
GeoDatabase::~GeoDatabase() = default;

cvmfs::Result<std::unique_ptr<GeoDatabase>> GeoDatabase::Open(
    const std::string& path) {
  auto handle = std::make_unique<Handle>();
  const int status = MMDB_open(path.c_str(), MMDB_MODE_MMAP, &handle->mmdb);
  if (status != MMDB_SUCCESS) {
    // MMDB_open frees what it allocated on failure; nothing to close.
    std::memset(&handle->mmdb, 0, sizeof(handle->mmdb));
    return cvmfs::Status::InvalidArgument("cannot open the geo database " +
                                          path + ": " + MMDB_strerror(status));
  }
  return std::unique_ptr<GeoDatabase>(new GeoDatabase(std::move(handle)));
}

namespace {

std::optional<double> Coordinate(MMDB_entry_s* entry, const char* name) {
  MMDB_entry_data_s data;
  if (MMDB_get_value(entry, &data, "location", name, nullptr) != MMDB_SUCCESS ||
      !data.has_data)
    return std::nullopt;
  if (data.type == MMDB_DATA_TYPE_DOUBLE) return data.double_value;
  if (data.type == MMDB_DATA_TYPE_FLOAT) return data.float_value;
  return std::nullopt;
}

}  // namespace

std::optional<GeoPoint> GeoDatabase::ByAddress(const IpAddress& address) const {
  sockaddr_storage storage{};
  if (address.ipv6) {
    auto* v6 = reinterpret_cast<sockaddr_in6*>(&storage);
    v6->sin6_family = AF_INET6;
    std::memcpy(&v6->sin6_addr, address.bytes.data(), 16);
  } else {
    auto* v4 = reinterpret_cast<sockaddr_in*>(&storage);
    v4->sin_family = AF_INET;
    std::memcpy(&v4->sin_addr, address.bytes.data(), 4);
  }
  int error = MMDB_SUCCESS;
  MMDB_lookup_result_s result = MMDB_lookup_sockaddr(
      &handle_->mmdb, reinterpret_cast<const sockaddr*>(&storage), &error);
  if (error != MMDB_SUCCESS || !result.found_entry) return std::nullopt;
  std::optional<double> lat = Coordinate(&result.entry, "latitude");
  std::optional<double> lon = Coordinate(&result.entry, "longitude");
  if (!lat || !lon) return std::nullopt;
  return GeoPoint{*lat, *lon};
}

}  // namespace server
