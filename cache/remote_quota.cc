#include "cache/remote_quota.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <utility>

#include "cache/cache_layout.h"
#include "cache/quota_protocol.h"

namespace cache {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;
using cvmfs::UniqueFd;

namespace {

constexpr auto kReconnectBackoff = std::chrono::seconds(1);

protocol::Request ObjectRequest(
    protocol::ObjectRef* (protocol::Request::*field)(), const Digest& id) {
  protocol::Request req;
  (req.*field)()->set_id(id.ToString());
  return req;
}

}  // namespace

Result<std::unique_ptr<RemoteQuota>> RemoteQuota::Connect(
    const RemoteQuotaOptions& options) {
  if (options.launch.quota_limit <= 0)
    return Status::InvalidArgument(
        "a shared cache needs a positive quota limit, not " +
        std::to_string(options.launch.quota_limit) + " bytes");
  std::unique_ptr<RemoteQuota> q(new RemoteQuota(options));
  cvmfs::MutexLock lock(&q->mu_);
  CVMFS_RETURN_IF_ERROR(q->EnsureConnected());
  return q;
}

// Closing the connection makes the manager release whatever is left.
RemoteQuota::~RemoteQuota() = default;

uint32_t RemoteQuota::manager_pid() const {
  cvmfs::MutexLock lock(&mu_);
  return conn_.valid() ? manager_pid_ : 0;
}

Status RemoteQuota::Exchange(const protocol::Request& req,
                             protocol::Reply* reply) {
  reply->Clear();
  CVMFS_RETURN_IF_ERROR(SendFrame(conn_.get(), req));
  return ReceiveFrame(conn_.get(), reply);
}

Status RemoteQuota::EnsureConnected() {
  if (conn_.valid()) return Status::Ok();
  if (std::chrono::steady_clock::now() < retry_after_) return last_error_;
  Status st = [this]() -> Status {
    mu_.AssertHeld();  // called right here, under the lock
    CVMFS_ASSIGN_OR_RETURN(conn_, ConnectOrStartManager(options_.launch));
    CVMFS_RETURN_IF_ERROR(Greet());
    return RestoreHolds();
  }();
  if (!st.ok()) {
    conn_.Reset();
    last_error_ = st.code() == Status::Code::kUnavailable
                      ? st
                      : Status::Unavailable(st.message());
    retry_after_ = std::chrono::steady_clock::now() + kReconnectBackoff;
    // A version mismatch is not a transient failure: say so.
    return st;
  }
  return Status::Ok();
}

Status RemoteQuota::Greet() {
  protocol::Request req;
  protocol::Hello* hello = req.mutable_hello();
  hello->set_protocol_version(kQuotaProtocolVersion);
  hello->set_pid(static_cast<uint32_t>(::getpid()));
  hello->set_name(options_.client_name);
  hello->set_quota_limit(static_cast<uint64_t>(options_.launch.quota_limit));
  protocol::Reply reply;
  CVMFS_RETURN_IF_ERROR(Exchange(req, &reply));
  CVMFS_RETURN_IF_ERROR(
      StatusOf(reply).Annotate("cache manager of " + options_.launch.dir));
  manager_pid_ = reply.hello().manager_pid();
  return Status::Ok();
}

Status RemoteQuota::RestoreHolds() {
  if (held_.empty()) return Status::Ok();
  protocol::Request req;
  for (const auto& [id, h] : held_) {
    protocol::Hold* hold = req.mutable_restore()->add_holds();
    hold->set_id(id.ToString());
    hold->set_opens(h.opens);
    hold->set_pins(h.pins);
  }
  protocol::Reply reply;
  CVMFS_RETURN_IF_ERROR(Exchange(req, &reply));
  return StatusOf(reply);
}

Status RemoteQuota::Call(const protocol::Request& req, protocol::Reply* reply) {
  for (int attempt = 0;; ++attempt) {
    CVMFS_RETURN_IF_ERROR(EnsureConnected());
    Status st = Exchange(req, reply);
    if (st.ok()) return StatusOf(*reply);
    // The manager is gone (or spoke garbage): a new one gets everything
    // this process holds, then the request once more.
    conn_.Reset();
    if (st.code() != Status::Code::kUnavailable || attempt > 0)
      return Status::Unavailable(st.message())
          .Annotate("cache manager of " + options_.launch.dir);
  }
}

Status RemoteQuota::Release(const protocol::Request& req) {
  // Without a connection there is nothing to release: a new manager gets
  // only what this process still holds (RestoreHolds), so no manager is
  // started (or reconnected to) just for this.
  if (!conn_.valid()) return Status::Ok();
  protocol::Reply reply;
  Status st = Exchange(req, &reply);
  if (!st.ok()) {
    conn_.Reset();
    return Status::Ok();
  }
  return StatusOf(reply);
}

void RemoteQuota::Count(const Digest& id, int opens, int pins) {
  Holds& h = held_[id];
  h.opens = static_cast<uint32_t>(static_cast<int>(h.opens) + opens);
  h.pins = static_cast<uint32_t>(static_cast<int>(h.pins) + pins);
  if (h.opens == 0 && h.pins == 0) held_.erase(id);
}

Result<UniqueFd> RemoteQuota::Open(const Digest& id, Access access) {
  cvmfs::MutexLock lock(&mu_);
  protocol::Reply reply;
  protocol::Request req = ObjectRequest(&protocol::Request::mutable_open, id);
  req.mutable_open()->set_speculative(access == Access::kSpeculative);
  Status st = Call(req, &reply);
  // Without a manager, cached files stay readable; the open is registered
  // with the next one (RestoreHolds).
  if (!st.ok() && st.code() != Status::Code::kUnavailable) return st;
  const bool registered = st.ok();
  std::string path = ObjectPath(options_.launch.dir, id);
  UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
  if (!fd.valid()) {
    int err = errno;
    if (registered)
      (void)Release(ObjectRequest(&protocol::Request::mutable_close, id));
    if (err == ENOENT)
      return Status::NotFound(path + (registered
                                          ? " is being stored by another "
                                            "mount or vanished"
                                          : " is not in the cache"));
    return Status::FromErrno(err, "open " + path);
  }
  Count(id, 1, 0);
  return fd;
}

void RemoteQuota::Close(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  auto it = held_.find(id);
  if (it == held_.end() || it->second.opens == 0) return;
  Release(ObjectRequest(&protocol::Request::mutable_close, id));
  Count(id, -1, 0);
}

Result<uint64_t> RemoteQuota::MaxObjectSize() {
  QuotaUsage u = usage();
  return u.limit - u.limit / 2;
}

Status RemoteQuota::Commit(const Digest& id, uint64_t size, ObjectType type,
                           const std::string& description,
                           const std::string& temp_path, Access access) {
  cvmfs::MutexLock lock(&mu_);
  protocol::Request req;
  protocol::InsertRequest* in = req.mutable_insert();
  in->set_id(id.ToString());
  in->set_size(size);
  in->set_type(type == ObjectType::kCatalog ? protocol::CATALOG
                                            : protocol::REGULAR);
  in->set_description(description);
  in->set_speculative(access == Access::kSpeculative);
  protocol::Reply reply;
  CVMFS_RETURN_IF_ERROR(Call(req, &reply));
  Count(id, 1, 0);
  // Charged and held open by us: nobody evicts it before the rename.
  std::string path = ObjectPath(options_.launch.dir, id);
  if (::rename(temp_path.c_str(), path.c_str()) == 0) return Status::Ok();
  Status st = Status::FromErrno(errno, "rename " + temp_path + " to " + path);
  (void)Release(ObjectRequest(&protocol::Request::mutable_close, id));
  Count(id, -1, 0);
  (void)Call(ObjectRequest(&protocol::Request::mutable_evict, id), &reply);
  return st;
}

Status RemoteQuota::Pin(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  protocol::Reply reply;
  CVMFS_RETURN_IF_ERROR(
      Call(ObjectRequest(&protocol::Request::mutable_pin, id), &reply));
  Count(id, 0, 1);
  return Status::Ok();
}

Status RemoteQuota::Unpin(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  auto it = held_.find(id);
  if (it == held_.end() || it->second.pins == 0)
    return Status::InvalidArgument("cannot unpin " + id.ToString() +
                                   ": not pinned");
  Status st = Release(ObjectRequest(&protocol::Request::mutable_unpin, id));
  Count(id, 0, -1);
  return st;
}

bool RemoteQuota::Contains(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  protocol::Reply reply;
  Status st =
      Call(ObjectRequest(&protocol::Request::mutable_contains, id), &reply);
  if (st.ok()) return reply.contains();
  struct stat sb;  // no manager: the file tells
  return ::stat(ObjectPath(options_.launch.dir, id).c_str(), &sb) == 0;
}

Status RemoteQuota::Evict(const Digest& id) {
  cvmfs::MutexLock lock(&mu_);
  protocol::Reply reply;
  return Call(ObjectRequest(&protocol::Request::mutable_evict, id), &reply);
}

Status RemoteQuota::Cleanup(uint64_t target_bytes) {
  cvmfs::MutexLock lock(&mu_);
  protocol::Request req;
  req.mutable_cleanup()->set_target(target_bytes);
  protocol::Reply reply;
  return Call(req, &reply);
}

Status RemoteQuota::SetLimit(uint64_t bytes) {
  cvmfs::MutexLock lock(&mu_);
  protocol::Request req;
  req.mutable_set_limit()->set_limit(bytes);
  protocol::Reply reply;
  return Call(req, &reply);
}

std::vector<QuotaEntry> RemoteQuota::List(bool pinned_only) {
  cvmfs::MutexLock lock(&mu_);
  protocol::Request req;
  req.mutable_list()->set_pinned_only(pinned_only);
  protocol::Reply reply;
  std::vector<QuotaEntry> out;
  if (!Call(req, &reply).ok()) return out;
  for (const protocol::Entry& e : reply.list().entries()) {
    out.push_back({e.id(), e.size(),
                   e.type() == protocol::CATALOG ? ObjectType::kCatalog
                                                 : ObjectType::kRegular,
                   e.pinned(), e.description()});
  }
  return out;
}

QuotaUsage RemoteQuota::usage() {
  cvmfs::MutexLock lock(&mu_);
  protocol::Request req;
  req.mutable_usage();
  protocol::Reply reply;
  QuotaUsage u{0, 0, static_cast<uint64_t>(options_.launch.quota_limit),
               0, 0, 0};
  if (!Call(req, &reply).ok()) return u;
  u.size = reply.usage().size();
  u.pinned = reply.usage().pinned();
  u.limit = reply.usage().limit();
  u.evictions = reply.usage().evictions();
  return u;
}

}  // namespace cache
