// NotificationFollower: a mount following its repository's notifications
// (CVMFS_NOTIFICATION_SERVER; doc/notifications.md), as CVMFS's
// NotificationClient does. Every activity message for the mounted
// repository is handed to RepositoryMount::FollowAnnouncement, which
// verifies the manifest it carries and, for a newer revision, wakes the
// revision updater: the switch happens in the updater's thread, never in
// a file system request, and never waits for the TTL.
//
//   NotificationSubscriber (its own thread, reconnects with backoff)
//     └─ activity message ─► RepositoryMount::FollowAnnouncement
//                              ├─ unverifiable, old, pinned: logged, ignored
//                              └─ newer: updater woken ─► switch revision
//
// Ownership: borrows the mount, which must outlive the follower (cvmfs2
// stops it before the updater). Thread safety: Start/Stop from one thread.
#ifndef CLIENT_NOTIFICATION_FOLLOWER_H_
#define CLIENT_NOTIFICATION_FOLLOWER_H_

#include <memory>
#include <string>

#include "client/event_log.h"
#include "client/repository_mount.h"
#include "cvmfs/network/notification_subscriber.h"

namespace cvmfs::client {

class NotificationFollower {
 public:
  // `server` is CVMFS_NOTIFICATION_SERVER (http://gateway:4929/api/v1).
  NotificationFollower(const std::string& server, const std::string& fqrn,
                       const std::string& user_agent, RepositoryMount* mount,
                       EventLog log);
  void Start() { subscriber_->Start(); }
  void Stop() { subscriber_->Stop(); }
  NotificationSubscriber::Counters counters() const {
    return subscriber_->counters();
  }

 private:
  std::unique_ptr<NotificationSubscriber> subscriber_;
};

}  // namespace cvmfs::client

#endif  // CLIENT_NOTIFICATION_FOLLOWER_H_
