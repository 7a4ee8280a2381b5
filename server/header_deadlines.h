// Deadlines for receiving request headers, against slow-loris clients: a
// connection that opens and then sends its request line and headers one
// byte at a time keeps libmicrohttpd's idle timeout from ever expiring
// (every byte resets it), and enough of them take every connection slot.
// HeaderDeadlines gives each connection a deadline by which the headers of
// its next request must be complete, and cuts (shutdown(2)) the connections
// past it; the HTTP library then sees the closed socket and drops them.
//
//   opened ---------------------> due: now + header_timeout
//   request line received ------> due: min(due, now + header_timeout)
//   headers complete -----------> no deadline (the response is being made)
//   request done (keep-alive) --> due: now + idle_timeout + header_timeout
//                                 (the library closes a silent connection
//                                 after idle_timeout; this only bounds one
//                                 that trickles)
//   closed ---------------------> forgotten; its descriptor is never used
//                                 again
//
// The owner calls CutOverdue() periodically (http_server.cc: a thread). A
// connection is cut once; its descriptor belongs to the library, which must
// report Closed() before it closes the descriptor (libmicrohttpd's
// MHD_CONNECTION_NOTIFY_CLOSED does), so that a cut never hits a reused
// descriptor number: both happen under the same mutex.
//
// Thread safety: every method may be called from any thread.
#ifndef SERVER_HEADER_DEADLINES_H_
#define SERVER_HEADER_DEADLINES_H_

#include <cstddef>
#include <list>

#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"

namespace server {

class HeaderDeadlines {
 public:
  using Duration = cvmfs::Clock::Duration;
  struct Connection;  // one per open connection; owned by this object

  // `clock` must outlive this object.
  HeaderDeadlines(const cvmfs::Clock* clock, Duration header_timeout,
                  Duration idle_timeout);
  HeaderDeadlines(const HeaderDeadlines&) = delete;
  HeaderDeadlines& operator=(const HeaderDeadlines&) = delete;

  // A new connection on socket `fd`; the handle is valid until Closed().
  Connection* Opened(int fd);
  void RequestLineReceived(Connection* c);
  void HeadersComplete(Connection* c);
  void RequestDone(Connection* c);
  void Closed(Connection* c);

  // Shuts down the socket of every connection past its deadline that has not
  // been cut before; returns how many were cut now.
  size_t CutOverdue();
  // Open connections (tests).
  size_t size() const;

 private:
  using TimePoint = cvmfs::Clock::TimePoint;

  const cvmfs::Clock* const clock_;
  const Duration header_timeout_;
  const Duration idle_timeout_;
  // Guards connections_; a leaf lock (held across shutdown(2), nothing
  // else).
  mutable cvmfs::Mutex mu_;
  std::list<Connection> connections_ GUARDED_BY(mu_);
};

struct HeaderDeadlines::Connection {
  int fd = -1;
  bool has_deadline = true;
  bool cut = false;
  cvmfs::Clock::TimePoint due;
  std::list<Connection>::iterator self;
};

}  // namespace server

#endif  // SERVER_HEADER_DEADLINES_H_
