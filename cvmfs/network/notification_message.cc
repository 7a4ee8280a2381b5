#include "cvmfs/network/notification_message.h"

#include <cstdint>
#include <nlohmann/json.hpp>

#include "cvmfs/base64.h"

namespace cvmfs {

namespace {

using json = nlohmann::json;

Status Invalid(const std::string& what) {
  return Status::InvalidArgument("notification message: " + what);
}

Result<json> ParseObject(std::string_view text) {
  if (text.size() > kMaxNotificationSize)
    return Invalid("larger than " + std::to_string(kMaxNotificationSize) +
                   " bytes");
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Invalid("not JSON");
  if (!j.is_object()) return Invalid("not a JSON object");
  return j;
}

Result<int> Version(const json& o) {
  auto it = o.find("version");
  if (it == o.end() || !it->is_number_integer())
    return Invalid("no version number");
  const int64_t v = it->get<int64_t>();
  if (v < 0 || v > 1000000) return Invalid("bad version " + it->dump());
  return static_cast<int>(v);
}

Result<std::string> StringField(const json& o, const std::string& key) {
  auto it = o.find(key);
  if (it == o.end() || !it->is_string())
    return Invalid("no string \"" + key + "\"");
  return it->get<std::string>();
}

// Keys in CVMFS's order. Never aborts (-fno-exceptions): bytes that are not
// UTF-8 become U+FFFD.
std::string Dump(const nlohmann::ordered_json& j) {
  return j.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace

std::string SerializeActivity(const ActivityMessage& m) {
  return Dump(nlohmann::ordered_json{{"version", m.version},
                                     {"timestamp", m.timestamp},
                                     {"type", "activity"},
                                     {"repository", m.repository},
                                     {"manifest", Base64(m.manifest)}});
}

Result<ActivityMessage> ParseActivity(std::string_view text) {
  CVMFS_ASSIGN_OR_RETURN(json o, ParseObject(text));
  CVMFS_ASSIGN_OR_RETURN(std::string type, StringField(o, "type"));
  if (type != "activity")
    return Status::InvalidArgument("notification message of type \"" + type +
                                   "\", not \"activity\"");
  ActivityMessage m;
  CVMFS_ASSIGN_OR_RETURN(m.version, Version(o));
  CVMFS_ASSIGN_OR_RETURN(m.timestamp, StringField(o, "timestamp"));
  CVMFS_ASSIGN_OR_RETURN(m.repository, StringField(o, "repository"));
  CVMFS_ASSIGN_OR_RETURN(std::string encoded, StringField(o, "manifest"));
  std::optional<std::string> manifest = Debase64(encoded);
  if (!manifest) return Invalid("manifest is not base64");
  m.manifest = std::move(*manifest);
  return m;
}

std::string SubscriptionRequest(const std::string& fqrn) {
  return Dump(nlohmann::ordered_json{{"version", kNotificationProtocolVersion},
                                     {"repository", fqrn}});
}

Result<std::string> ParseSubscriptionRequest(std::string_view text) {
  CVMFS_ASSIGN_OR_RETURN(json o, ParseObject(text));
  CVMFS_ASSIGN_OR_RETURN(int version, Version(o));
  (void)version;
  return StringField(o, "repository");
}

std::string NotificationUrl(std::string_view server,
                            std::string_view endpoint) {
  while (!server.empty() && server.back() == '/') server.remove_suffix(1);
  return std::string(server) + "/notifications/" + std::string(endpoint);
}

}  // namespace cvmfs
