// ConnectionLimit: how many transfers (each on its own connection) the HTTP
// fetcher may have in flight now, adapted to how the server copes.
//
// The limit moves between 1 and `max` (CVMFS_MAX_CONNECTIONS) as TCP's
// congestion window does, driven by what each finished attempt saw:
//
//   healthy attempt  grows the limit while it was in use (the fetcher had
//                    as many transfers as the limit allowed): by 1 per
//                    attempt below the threshold (slow start, doubling per
//                    round of transfers), then by 1 per `limit` attempts
//                    (additive increase, one per round).
//   slow attempt     a connect, or two first bytes in a row, that took
//                    more than kSlowFactor times their recent baseline (and
//                    kSlowExcess more): halves the limit (multiplicative
//                    decrease). One slow first byte is not enough: behind a
//                    proxy a cache miss is naturally much slower than the
//                    hits before it.
//   dropped SYN      a connect that took kDroppedSyn or longer (the kernel
//                    retransmits a lost SYN after 1 s): halves it.
//   failed connect   refused, reset, timed out, nothing received: halves it.
//
// A decrease happens at most once per round: an attempt that started before
// the last decrease saw the load from before it, and does not decrease
// again (a burst of connects dropped together halves the limit once). What
// is halved is the number of transfers in flight when the failed attempt
// started (Sample::in_flight), as TCP halves its flight size. The
// threshold becomes the halved limit, so growth after a decrease is
// additive. After a dropped SYN the limit also stays below that number
// (the ceiling) for kCeilingHold: each probe of a limit the server
// cannot take costs a dropped SYN, a second for the transfer that waits for it,
// so the probing happens once per kCeilingHold rather than once per sawtooth. A
// server that gets fewer connections than it could take loses less than one
// that drops a connection every few dozen requests.
//
// The baselines are moving averages (1/8 per sample) of the connect time
// (new connections only) and of the time to first byte after the request
// was sent; a slow sample moves them by at most a doubling of 1/8, so a
// server that became slower for good is a new baseline after a few dozen
// attempts rather than a reason to stay at 1.
//
// The first limit is kInitial (at most `max`): fewer than the listen
// backlog of a small server (5, python's http.server), and slow start
// reaches 16 after two rounds on a healthy one.
//
// Thread safety: none; the fetcher's I/O thread owns it. The clock is
// borrowed and must outlive it.
#ifndef CVMFS_NETWORK_CONNECTION_LIMIT_H_
#define CVMFS_NETWORK_CONNECTION_LIMIT_H_

#include <chrono>

#include "cvmfs/clock.h"

namespace cvmfs {

class ConnectionLimit {
 public:
  using Duration = Clock::Duration;
  using TimePoint = Clock::TimePoint;

  static constexpr int kInitial = 4;
  static constexpr int kSlowFactor = 4;
  static constexpr Duration kSlowExcess = std::chrono::milliseconds(100);
  static constexpr Duration kDroppedSyn = std::chrono::milliseconds(900);
  static constexpr Duration kCeilingHold = std::chrono::seconds(30);

  // What one finished attempt saw. `connect` is zero when it reused a
  // connection (or had none: a local file).
  struct Sample {
    TimePoint started;      // when the attempt was handed to curl
    Duration connect{};     // TCP connect, new connections only
    Duration first_byte{};  // request sent -> first byte of the response
    bool new_connection = false;
    bool failed = false;  // connect refused/timed out, reset, no response
    bool in_use = false;  // the fetcher was at the limit when it finished
    // Transfers in flight when it started, itself included (0: unknown,
    // taken as the limit). A decrease halves this rather than the limit,
    // as TCP halves the flight size: the limit may have grown past what
    // was really sent while the verdict on an attempt was a second away.
    int in_flight = 0;
  };

  // `max` >= 1; `clock` borrowed.
  ConnectionLimit(int max, const Clock* clock);

  int limit() const { return limit_; }
  int max() const { return max_; }
  void Record(const Sample& sample);

  // Baselines, for tests and logs (zero before the first sample).
  Duration connect_baseline() const { return connect_base_; }
  Duration first_byte_baseline() const { return first_byte_base_; }

 private:
  // Whether `sample` is slow against `*base`; updates the baseline.
  static bool Slow(Duration sample, Duration* base);
  void Decrease(const Sample& s, bool dropped_syn);
  void Increase();

  const int max_;
  const Clock* const clock_;
  int limit_;
  int threshold_;  // slow start below it
  int ceiling_;    // one below the limit that last dropped a SYN, or max_
  int healthy_in_round_ = 0;  // additive increase: attempts since the last +1
  int slow_first_bytes_ = 0;  // in a row
  TimePoint last_decrease_;
  Duration connect_base_{};
  Duration first_byte_base_{};
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_CONNECTION_LIMIT_H_
