// The messages of CVMFS's notification system (doc/notifications.md): the
// activity message a publisher posts to <server>/notifications/publish and
// a subscriber receives, and the subscription request.
//
//   {"version":1,"timestamp":"<text>","type":"activity",
//    "repository":"<fqrn>","manifest":"<base64 of .cvmfspublished>"}
//
// The message is only a hint: the manifest it carries is trusted only once
// its chain of trust is verified (cvmfs/trust_chain.h), never because the
// message arrived. Parsed with nlohmann::json: any order of the keys,
// whitespace and unknown keys are accepted (as CVMFS's JSON reader does); a
// missing key, a value of the wrong JSON type, a type other than "activity"
// or a manifest that is not base64 is InvalidArgument.
//
// Thread safety: free functions over values.
#ifndef CVMFS_NETWORK_NOTIFICATION_MESSAGE_H_
#define CVMFS_NETWORK_NOTIFICATION_MESSAGE_H_

#include <string>
#include <string_view>

#include "cvmfs/status.h"

namespace cvmfs {

inline constexpr int kNotificationProtocolVersion = 1;
// A message is never larger than this (a manifest is a few hundred bytes).
inline constexpr size_t kMaxNotificationSize = 1 << 20;

struct ActivityMessage {
  int version = kNotificationProtocolVersion;
  std::string timestamp;   // as the publisher wrote it; informational
  std::string repository;  // the fqrn
  std::string manifest;    // the bytes of .cvmfspublished (decoded)
};

std::string SerializeActivity(const ActivityMessage& message);
Result<ActivityMessage> ParseActivity(std::string_view json);

// The body of a subscription request: {"version":1,"repository":"<fqrn>"}.
std::string SubscriptionRequest(const std::string& fqrn);
// The repository a subscription request names.
Result<std::string> ParseSubscriptionRequest(std::string_view json);

// "<server>/notifications/<endpoint>", `server` being what
// CVMFS_NOTIFICATION_SERVER holds (http://gw:4929/api/v1, a trailing '/'
// allowed).
std::string NotificationUrl(std::string_view server, std::string_view endpoint);

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_NOTIFICATION_MESSAGE_H_
