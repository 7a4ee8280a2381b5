// PublishNotification: posts an activity message to a notification server
// (doc/notifications.md), as `cvmfs_swissknife notify -p` does:
//
//   POST <server>/notifications/publish   body: the activity message JSON
//   answer 200 {"status":"ok"}
//
// Thread safety: a free function; one blocking request (timeout `timeout`).
#ifndef CVMFS_NETWORK_NOTIFICATION_PUBLISHER_H_
#define CVMFS_NETWORK_NOTIFICATION_PUBLISHER_H_

#include <chrono>
#include <string>

#include "cvmfs/network/notification_message.h"
#include "cvmfs/status.h"

namespace cvmfs {

// Unavailable naming the server's answer when it is not a 200 with
// "status":"ok".
Status PublishNotification(const std::string& server,
                           const ActivityMessage& message,
                           std::chrono::seconds timeout);

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_NOTIFICATION_PUBLISHER_H_
