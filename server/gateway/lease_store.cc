#include "server/gateway/lease_store.h"

#include <ctime>
#include <nlohmann/json.hpp>
#include <utility>

#include "cvmfs/file_util.h"

namespace gateway {

using nlohmann::json;

FileLeaseStore::FileLeaseStore(std::string path,
                               std::function<int64_t()> wall_now)
    : path_(std::move(path)), wall_now_(wall_now ? std::move(wall_now) : [] {
        return static_cast<int64_t>(::time(nullptr));
      }) {}

cvmfs::Status FileLeaseStore::Save(const std::vector<StoredLease>& leases) {
  const int64_t now = wall_now_();
  json list = json::array();
  for (const StoredLease& l : leases) {
    list.push_back({{"token", l.token},
                    {"path", l.path.ToString()},
                    {"key_id", l.key_id},
                    {"expires", now + l.remaining.count()}});
  }
  json doc = {{"version", 1}, {"leases", list}};
  return cvmfs::WriteFileAtomic(
             path_, doc.dump(-1, ' ', false, json::error_handler_t::replace),
             0600, /*sync=*/true)
      .Annotate("saving the leases");
}

cvmfs::Result<std::vector<StoredLease>> FileLeaseStore::Load() {
  std::vector<StoredLease> out;
  if (!cvmfs::PathExists(path_)) return out;
  CVMFS_ASSIGN_OR_RETURN(std::string text, cvmfs::ReadFile(path_));
  auto corrupt = [this](const std::string& why) {
    return cvmfs::Status::Corruption(path_ + ": " + why);
  };
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return corrupt("not JSON");
  auto version = doc.find("version");
  if (version == doc.end() || *version != 1) return corrupt("unknown version");
  auto leases = doc.find("leases");
  if (leases == doc.end() || !leases->is_array())
    return corrupt("no lease list");
  const int64_t now = wall_now_();
  for (const json& l : *leases) {
    if (!l.is_object() || !l.contains("token") || !l["token"].is_string() ||
        !l.contains("path") || !l["path"].is_string() ||
        !l.contains("key_id") || !l["key_id"].is_string() ||
        !l.contains("expires") || !l["expires"].is_number_integer())
      return corrupt("a lease without token, path, key_id or expires");
    auto path = publisher::ParseLeasePath(l["path"].get<std::string>());
    if (!path.ok()) return corrupt(path.status().message());
    int64_t left = l["expires"].get<int64_t>() - now;
    if (left <= 0) continue;
    out.push_back({l["token"].get<std::string>(), *path,
                   l["key_id"].get<std::string>(), std::chrono::seconds(left)});
  }
  return out;
}

}  // namespace gateway
