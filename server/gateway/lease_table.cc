#include "server/gateway/lease_table.h"

namespace gateway {

void LeaseTable::RemoveExpired() {
  cvmfs::Clock::TimePoint now = clock_->Now();
  for (auto it = leases_.begin(); it != leases_.end();) {
    if (it->second.expires <= now) {
      it = leases_.erase(it);
    } else {
      ++it;
    }
  }
}

cvmfs::Result<Lease> LeaseTable::Acquire(const publisher::LeasePath& path,
                                         const std::string& key_id,
                                         const std::string& token,
                                         Lease* holder) {
  cvmfs::MutexLock lock(&mu_);
  RemoveExpired();
  for (const auto& [t, lease] : leases_) {
    if (publisher::Overlaps(lease.path, path)) {
      if (holder) *holder = lease;
      return cvmfs::Status::Busy("path_busy: " + lease.path.ToString() +
                                 " is leased by " + lease.key_id);
    }
  }
  if (leases_.count(token))
    return cvmfs::Status::AlreadyExists("lease token in use");
  Lease lease{token, path, key_id, clock_->Now() + max_lease_time_};
  leases_[token] = lease;
  return lease;
}

cvmfs::Result<Lease> LeaseTable::Find(const std::string& token) {
  cvmfs::MutexLock lock(&mu_);
  auto it = leases_.find(token);
  if (it == leases_.end()) return cvmfs::Status::NotFound("invalid_token");
  if (it->second.expires <= clock_->Now()) {
    leases_.erase(it);
    return cvmfs::Status::Unavailable("lease_expired");
  }
  return it->second;
}

cvmfs::Status LeaseTable::Drop(const std::string& token) {
  cvmfs::MutexLock lock(&mu_);
  if (leases_.erase(token) == 0)
    return cvmfs::Status::NotFound("invalid_token");
  return cvmfs::Status::Ok();
}

size_t LeaseTable::DropByPath(const publisher::LeasePath& path) {
  cvmfs::MutexLock lock(&mu_);
  size_t n = 0;
  for (auto it = leases_.begin(); it != leases_.end();) {
    if (it->second.path == path) {
      it = leases_.erase(it);
      ++n;
    } else {
      ++it;
    }
  }
  return n;
}

std::vector<Lease> LeaseTable::List() {
  cvmfs::MutexLock lock(&mu_);
  RemoveExpired();
  std::vector<Lease> out;
  for (const auto& [t, lease] : leases_) out.push_back(lease);
  return out;
}

}  // namespace gateway
