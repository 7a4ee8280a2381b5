// LeaseTable: the gateway's leases (doc/gateway.md, "Leases"). A lease gives
// its holder (a key id) the exclusive right to change a subtree of one
// repository until it is dropped, committed or expires.
//
// Invariant: no two live leases overlap (lease_path.h). A lease whose
// expiry has passed is dead: it no longer blocks its path and its token is
// refused; dead leases are removed lazily, by the next call that meets them.
// Time comes from the injected Clock (cvmfs/clock.h), so expiry is tested
// with a ManualClock.
//
// Thread safety: every method may be called from any thread.
#ifndef SERVER_GATEWAY_LEASE_TABLE_H_
#define SERVER_GATEWAY_LEASE_TABLE_H_

#include <cstddef>
#include <map>
#include <string>
#include <vector>

#include "cvmfs/clock.h"
#include "cvmfs/mutex.h"
#include "cvmfs/status.h"
#include "publisher/lease_path.h"

namespace gateway {

struct Lease {
  std::string token;
  publisher::LeasePath path;
  std::string key_id;
  cvmfs::Clock::TimePoint expires;
};

class LeaseTable {
 public:
  // `clock` is borrowed and outlives the table.
  LeaseTable(const cvmfs::Clock* clock, cvmfs::Clock::Duration max_lease_time)
      : clock_(clock), max_lease_time_(max_lease_time) {}

  // Grants `path` to `key_id` under `token` (fresh and unguessable: the
  // caller makes it). Busy when a live lease overlaps; then `*holder` (if
  // not null) is that lease.
  cvmfs::Result<Lease> Acquire(const publisher::LeasePath& path,
                               const std::string& key_id,
                               const std::string& token, Lease* holder);
  // The live lease of `token`: NotFound if none, Unavailable("lease_expired")
  // if it has expired (the lease is then removed).
  cvmfs::Result<Lease> Find(const std::string& token);
  // Removes the lease of `token`; NotFound if there is none.
  cvmfs::Status Drop(const std::string& token);
  // Removes the leases exactly on `path`; returns how many.
  size_t DropByPath(const publisher::LeasePath& path);
  // The live leases, ordered by token.
  std::vector<Lease> List();
  cvmfs::Clock::Duration max_lease_time() const { return max_lease_time_; }

 private:
  void RemoveExpired() REQUIRES(mu_);

  const cvmfs::Clock* clock_;
  const cvmfs::Clock::Duration max_lease_time_;
  cvmfs::Mutex mu_;  // guards leases_; leaf lock
  std::map<std::string, Lease> leases_ GUARDED_BY(mu_);  // by token
};

}  // namespace gateway

#endif  // SERVER_GATEWAY_LEASE_TABLE_H_
