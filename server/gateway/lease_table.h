// LeaseTable: the gateway's leases (doc/gateway.md, "Leases"). A lease gives
// its holder (a key id) the exclusive right to change a subtree of one
// repository until it is dropped, committed or expires.
//
// Invariant: no two live leases overlap (lease_path.h). A lease whose
// expiry has passed is dead: it no longer blocks its path and its token is
// refused; dead leases are removed lazily, by the next call that meets them.
// Time comes from the injected Clock (cvmfs/clock.h), so expiry is tested
// with a ManualClock. With a LeaseStore every change is saved, and Restore()
// brings the saved leases back after a restart (lease_store.h).
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
#include "server/gateway/lease_store.h"

namespace gateway {

struct Lease {
  std::string token;
  publisher::LeasePath path;
  std::string key_id;
  cvmfs::Clock::TimePoint expires;
  // Saved in the LeaseStore. The gateway's own lease around an admin gc is
  // not: after a crash it would block the repository until it expired.
  bool durable = true;
};

class LeaseTable {
 public:
  // `clock` and `store` (may be null: leases live in memory only) are
  // borrowed and outlive the table.
  LeaseTable(const cvmfs::Clock* clock, cvmfs::Clock::Duration max_lease_time,
             LeaseStore* store = nullptr)
      : clock_(clock), max_lease_time_(max_lease_time), store_(store) {}

  // Adds the leases saved in the store (call once, before serving).
  cvmfs::Status Restore();

  // Grants `path` to `key_id` under `token` (fresh and unguessable: the
  // caller makes it). Busy when a live lease overlaps; then `*holder` (if
  // not null) is that lease. A lease the store could not save is not
  // granted (the store's error).
  cvmfs::Result<Lease> Acquire(const publisher::LeasePath& path,
                               const std::string& key_id,
                               const std::string& token, Lease* holder,
                               bool durable = true);
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
  // Saves the table (Ok without a store). Only a new lease fails on an
  // error; a removal that was not saved comes back after a restart until
  // its expiry, which is harmless.
  cvmfs::Status Persist() REQUIRES(mu_);

  const cvmfs::Clock* clock_;
  const cvmfs::Clock::Duration max_lease_time_;
  LeaseStore* const store_;
  cvmfs::Mutex mu_;  // guards leases_; leaf lock
  std::map<std::string, Lease> leases_ GUARDED_BY(mu_);  // by token
};

}  // namespace gateway

#endif  // SERVER_GATEWAY_LEASE_TABLE_H_
