// LeaseStore: where the gateway's leases outlive its process (doc/gateway.md,
// "Leases"), so that a restart of cvmfs_gateway (an upgrade, a crash) keeps
// every release manager's lease and its time left, as CVMFS's gateway keeps
// them in its work_dir.
//
// FileLeaseStore writes all live leases to one JSON file, replaced
// atomically (mode 0600: tokens are secrets), with each lease's expiry in
// wall-clock Unix seconds, so the time a gateway was down counts:
//
//   {"version":1,"leases":[{"token":"..","path":"<fqrn>/<path>",
//                           "key_id":"..","expires":<unix seconds>}]}
//
// Thread safety: one caller at a time (LeaseTable holds its lock).
#ifndef SERVER_GATEWAY_LEASE_STORE_H_
#define SERVER_GATEWAY_LEASE_STORE_H_

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "cvmfs/status.h"
#include "publisher/lease_path.h"

namespace gateway {

struct StoredLease {
  std::string token;
  publisher::LeasePath path;
  std::string key_id;
  std::chrono::seconds remaining{0};  // time left when saved / loaded
};

class LeaseStore {
 public:
  virtual ~LeaseStore() = default;
  // Replaces what was stored with `leases`.
  virtual cvmfs::Status Save(const std::vector<StoredLease>& leases) = 0;
  // The leases stored, with the time left now (expired ones left out).
  virtual cvmfs::Result<std::vector<StoredLease>> Load() = 0;
};

class FileLeaseStore : public LeaseStore {
 public:
  // `wall_now` gives Unix seconds (default: time(nullptr)).
  explicit FileLeaseStore(std::string path,
                          std::function<int64_t()> wall_now = nullptr);
  cvmfs::Status Save(const std::vector<StoredLease>& leases) override;
  // A missing file is no lease; a corrupt one is an error naming it.
  cvmfs::Result<std::vector<StoredLease>> Load() override;

 private:
  const std::string path_;
  const std::function<int64_t()> wall_now_;
};

}  // namespace gateway

#endif  // SERVER_GATEWAY_LEASE_STORE_H_
