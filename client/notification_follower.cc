#include "client/notification_follower.h"

#include <utility>

namespace cvmfs::client {

NotificationFollower::NotificationFollower(const std::string& server,
                                           const std::string& fqrn,
                                           const std::string& user_agent,
                                           RepositoryMount* mount,
                                           EventLog log) {
  NotificationSubscriberOptions o;
  o.server = server;
  o.fqrn = fqrn;
  o.user_agent = user_agent;
  // FollowAnnouncement logs what it did with the message itself.
  auto on_message = [mount](const ActivityMessage& m) {
    (void)mount->FollowAnnouncement(m.manifest);
  };
  auto on_log = [log = std::move(log)](const std::string& what) {
    log(Severity::kWarning, what);
  };
  subscriber_ = std::make_unique<NotificationSubscriber>(
      std::move(o), std::move(on_message), std::move(on_log));
}

}  // namespace cvmfs::client
