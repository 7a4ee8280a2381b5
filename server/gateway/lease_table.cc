#include "server/gateway/lease_table.h"

#include <chrono>
#include <utility>

namespace gateway {

cvmfs::Status LeaseTable::Restore() {
  if (!store_) return cvmfs::Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(std::vector<StoredLease> saved, store_->Load());
  cvmfs::MutexLock lock(&mu_);
  const cvmfs::Clock::TimePoint now = clock_->Now();
  for (StoredLease& l : saved) {
    leases_[l.token] = Lease{
        l.token, std::move(l.path), std::move(l.key_id),
        now + std::chrono::duration_cast<cvmfs::Clock::Duration>(l.remaining),
        /*durable=*/true};
  }
  return cvmfs::Status::Ok();
}

cvmfs::Status LeaseTable::Persist() {
  if (!store_) return cvmfs::Status::Ok();
  const cvmfs::Clock::TimePoint now = clock_->Now();
  std::vector<StoredLease> all;
  for (const auto& [token, l] : leases_) {
    if (!l.durable) continue;
    all.push_back({token, l.path, l.key_id,
                   std::chrono::ceil<std::chrono::seconds>(l.expires - now)});
  }
  return store_->Save(all);
}

void LeaseTable::RemoveExpired() {
  cvmfs::Clock::TimePoint now = clock_->Now();
  bool removed = false;
  for (auto it = leases_.begin(); it != leases_.end();) {
    if (it->second.expires <= now) {
      it = leases_.erase(it);
      removed = true;
    } else {
      ++it;
    }
  }
  if (removed) (void)Persist();
}

cvmfs::Result<Lease> LeaseTable::Acquire(const publisher::LeasePath& path,
                                         const std::string& key_id,
                                         const std::string& token,
                                         Lease* holder, bool durable) {
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
  Lease lease{token, path, key_id, clock_->Now() + max_lease_time_, durable};
  leases_[token] = lease;
  if (cvmfs::Status saved = Persist(); !saved.ok()) {
    leases_.erase(token);
    return saved;
  }
  return lease;
}

cvmfs::Result<Lease> LeaseTable::Find(const std::string& token) {
  cvmfs::MutexLock lock(&mu_);
  auto it = leases_.find(token);
  if (it == leases_.end()) return cvmfs::Status::NotFound("invalid_token");
  if (it->second.expires <= clock_->Now()) {
    leases_.erase(it);
    (void)Persist();
    return cvmfs::Status::Unavailable("lease_expired");
  }
  return it->second;
}

cvmfs::Status LeaseTable::Drop(const std::string& token) {
  cvmfs::MutexLock lock(&mu_);
  if (leases_.erase(token) == 0)
    return cvmfs::Status::NotFound("invalid_token");
  (void)Persist();
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
  if (n > 0) (void)Persist();
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
