// NotificationSubscriber: follows one repository's activity messages on a
// notification server (CVMFS_NOTIFICATION_SERVER; doc/notifications.md),
// in its own thread.
//
//   Start ─► connect: GET <server>/notifications/subscribe
//              body {"version":1,"repository":"<fqrn>"}
//            200: each server-sent event ─► ParseActivity ─► on_message
//            (a message that does not parse, or names another repository,
//             is logged and skipped)
//        ◄── the stream ends or fails: wait the backoff, connect again
//
// The backoff starts at options.initial_backoff, doubles after every
// attempt that did not get a 200 answer, and is capped at max_backoff; a
// connection the server accepted resets it. The connection goes straight
// to the server (no proxy: a long-lived stream has no business in a
// cache) and has no overall timeout: the server may stay silent for hours.
//
// on_message runs on the subscriber's thread, one message at a time; it
// may block (verify a manifest), which only delays the next message. Stop()
// (and the destructor) ends the stream within about a second and joins.
//
// Thread safety: Start/Stop from one owner thread; counters() from any.
#ifndef CVMFS_NETWORK_NOTIFICATION_SUBSCRIBER_H_
#define CVMFS_NETWORK_NOTIFICATION_SUBSCRIBER_H_

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "cvmfs/mutex.h"
#include "cvmfs/network/notification_message.h"
#include "cvmfs/status.h"

namespace cvmfs {

struct NotificationSubscriberOptions {
  std::string server;  // CVMFS_NOTIFICATION_SERVER, e.g. http://gw:4929/api/v1
  std::string fqrn;    // the repository followed
  std::string user_agent = "cvmfs";
  std::chrono::milliseconds initial_backoff{1000};
  std::chrono::milliseconds max_backoff{60000};
  std::chrono::seconds connect_timeout{10};
};

class NotificationSubscriber {
 public:
  struct Counters {
    uint64_t connections = 0;  // subscriptions the server accepted (200)
    uint64_t failures = 0;     // attempts that failed or ended
    uint64_t messages = 0;     // activity messages for this repository
    uint64_t malformed = 0;    // events that were not activity messages
  };
  using MessageHandler = std::function<void(const ActivityMessage&)>;
  using LogFn = std::function<void(const std::string&)>;

  NotificationSubscriber(NotificationSubscriberOptions options,
                         MessageHandler on_message, LogFn log);
  ~NotificationSubscriber();
  NotificationSubscriber(const NotificationSubscriber&) = delete;
  NotificationSubscriber& operator=(const NotificationSubscriber&) = delete;

  void Start();
  void Stop() EXCLUDES(mu_);
  Counters counters() const;

  // One subscription in the calling thread, until the server ends it, it
  // fails, or Stop() (Ok only when the server ended it or Stop()).
  // `accepted` is set once the server answered 200.
  Status SubscribeOnce(bool* accepted);

 private:
  void Loop() EXCLUDES(mu_);
  // Handles a complete event; false: stop this subscription.
  void Event(const std::string& text);
  bool stopping() const { return stop_flag_.load(); }

  NotificationSubscriberOptions options_;
  MessageHandler on_message_;
  LogFn log_;
  std::atomic<bool> stop_flag_{false};
  std::atomic<uint64_t> connections_{0}, failures_{0}, messages_{0},
      malformed_{0};
  mutable cvmfs::Mutex mu_;  // guards nothing but the backoff wait
  std::condition_variable cv_;
  std::thread thread_;
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_NOTIFICATION_SUBSCRIBER_H_
