// NotificationHub: the gateway's notification service (doc/gateway.md,
// notifications/publish and notifications/subscribe): the latest message
// announced per repository, and subscribers that wait for the next one.
//
// A subscriber sees the messages published after it subscribed; when several
// come before it looks, it gets the latest only (each carries a whole
// manifest, so the latest supersedes the others).
//
// Thread safety: every method may be called from any thread. Shutdown()
// wakes every waiter for good (the server is stopping).
#ifndef SERVER_GATEWAY_NOTIFICATION_HUB_H_
#define SERVER_GATEWAY_NOTIFICATION_HUB_H_

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "cvmfs/mutex.h"

namespace gateway {

class NotificationHub {
 public:
  void Publish(const std::string& fqrn, std::string message);
  // The sequence number of the latest message of `fqrn` (0: none yet); a
  // subscriber starts from it.
  uint64_t Cursor(const std::string& fqrn);
  // Waits up to `timeout` for a message of `fqrn` newer than `*cursor`;
  // returns it and advances `*cursor`. nullopt on timeout or shutdown.
  std::optional<std::string> WaitNext(const std::string& fqrn, uint64_t* cursor,
                                      std::chrono::milliseconds timeout);
  void Shutdown();

 private:
  struct Latest {
    uint64_t seq = 0;
    std::string message;
  };
  cvmfs::Mutex mu_;  // guards latest_, seq_, stopped_; leaf lock
  std::condition_variable changed_;
  std::map<std::string, Latest> latest_ GUARDED_BY(mu_);
  uint64_t seq_ GUARDED_BY(mu_) = 0;
  bool stopped_ GUARDED_BY(mu_) = false;
};

}  // namespace gateway

#endif  // SERVER_GATEWAY_NOTIFICATION_HUB_H_
