#include "server/header_deadlines.h"

#include <sys/socket.h>

#include <algorithm>

namespace server {

HeaderDeadlines::HeaderDeadlines(const cvmfs::Clock* clock,
                                 Duration header_timeout, Duration idle_timeout)
    : clock_(clock),
      header_timeout_(header_timeout),
      idle_timeout_(idle_timeout) {}

HeaderDeadlines::Connection* HeaderDeadlines::Opened(int fd) {
  cvmfs::MutexLock lock(&mu_);
  connections_.emplace_front();
  Connection* c = &connections_.front();
  c->fd = fd;
  c->due = clock_->Now() + header_timeout_;
  c->self = connections_.begin();
  return c;
}

void HeaderDeadlines::RequestLineReceived(Connection* c) {
  cvmfs::MutexLock lock(&mu_);
  TimePoint due = clock_->Now() + header_timeout_;
  c->due = c->has_deadline ? std::min(c->due, due) : due;
  c->has_deadline = true;
}

void HeaderDeadlines::HeadersComplete(Connection* c) {
  cvmfs::MutexLock lock(&mu_);
  c->has_deadline = false;
}

void HeaderDeadlines::RequestDone(Connection* c) {
  cvmfs::MutexLock lock(&mu_);
  c->due = clock_->Now() + idle_timeout_ + header_timeout_;
  c->has_deadline = true;
}

void HeaderDeadlines::Closed(Connection* c) {
  cvmfs::MutexLock lock(&mu_);
  connections_.erase(c->self);
}

size_t HeaderDeadlines::CutOverdue() {
  cvmfs::MutexLock lock(&mu_);
  TimePoint now = clock_->Now();
  size_t cut = 0;
  for (Connection& c : connections_) {
    if (!c.has_deadline || c.cut || now < c.due) continue;
    // The library still owns the descriptor (Closed() has not been called,
    // and it is called before the library closes it).
    ::shutdown(c.fd, SHUT_RDWR);
    c.cut = true;
    ++cut;
  }
  return cut;
}

size_t HeaderDeadlines::size() const {
  cvmfs::MutexLock lock(&mu_);
  return connections_.size();
}

}  // namespace server
