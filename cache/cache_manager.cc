#include "cache/cache_manager.h"

#include <fcntl.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <utility>
#include <vector>

#include "cache/cache_layout.h"
#include "cache/cache_recovery.h"
#include "cache/quota_protocol.h"

namespace cache {

using cvmfs::Digest;
using cvmfs::Result;
using cvmfs::Status;
using cvmfs::UniqueFd;

namespace {

// cachedb is written behind; idle moments of this length flush it.
constexpr int kTickMs = 1000;
// txn/ files of crashed clients: untouched for this long.
constexpr int64_t kStaleTxnSeconds = 3600;
// A client that does not take its reply within this time is dropped, so
// that it cannot stall every other mount.
constexpr int kSendTimeoutSeconds = 10;
constexpr size_t kReadChunk = 64 * 1024;
// Opens and pins one restore request may re-register (Restore).
constexpr uint64_t kMaxRestoreHolds = 1 << 21;

Result<Digest> ParseId(const std::string& text) {
  auto id = Digest::Parse(text);
  if (!id.ok())
    return Status::InvalidArgument("invalid object id '" + text +
                                   "': " + id.status().message());
  return *id;
}

protocol::ObjectType ToWire(ObjectType type) {
  return type == ObjectType::kCatalog ? protocol::CATALOG : protocol::REGULAR;
}

// The object a single-object request names.
const std::string* ObjectIdOf(const protocol::Request& req) {
  switch (req.op_case()) {
    case protocol::Request::kOpen:
      return &req.open().id();
    case protocol::Request::kClose:
      return &req.close().id();
    case protocol::Request::kPin:
      return &req.pin().id();
    case protocol::Request::kUnpin:
      return &req.unpin().id();
    case protocol::Request::kEvict:
      return &req.evict().id();
    case protocol::Request::kContains:
      return &req.contains().id();
    default:
      return nullptr;
  }
}

}  // namespace

CacheManager::CacheManager(const CacheManagerOptions& options)
    : options_(options),
      socket_path_(cvmfs::JoinPath(options.dir, kManagerSocketName)) {}

Result<std::unique_ptr<CacheManager>> CacheManager::Create(
    const CacheManagerOptions& options) {
  if (options.quota_limit <= 0)
    return Status::InvalidArgument(
        "a cache manager needs a positive quota limit, not " +
        std::to_string(options.quota_limit) + " bytes");
  std::unique_ptr<CacheManager> m(new CacheManager(options));
  // The store first: its lock keeps a second manager from touching the
  // socket of a running one.
  CVMFS_ASSIGN_OR_RETURN(m->store_,
                         QuotaStore::Open(options.dir, options.quota_limit));
  CVMFS_RETURN_IF_ERROR(RemoveStaleTransactions(options.dir, kStaleTxnSeconds));
  CVMFS_ASSIGN_OR_RETURN(m->listen_fd_, ListenUnixSocket(m->socket_path_));
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
    return Status::FromErrno(errno, "pipe");
  m->stop_read_.Reset(fds[0]);
  m->stop_write_.Reset(fds[1]);
  QuotaUsage u = m->store_->usage();
  m->Log("cache manager for " + options.dir +
         " started: " + std::to_string(u.size) + " of " +
         std::to_string(u.limit) + " bytes used");
  return m;
}

CacheManager::~CacheManager() {
  for (auto& [fd, c] : clients_) Drop(c.get());
  if (listen_fd_.valid()) ::unlink(socket_path_.c_str());
  listen_fd_.Reset();
  store_.reset();      // writes cachedb, releases lock_cachedb
  exit_lock_.Reset();  // only now may a client start a new manager
}

void CacheManager::Log(const std::string& msg) const {
  if (options_.log) options_.log(msg);
}

void CacheManager::Stop() {
  char byte = 0;
  (void)!::write(stop_write_.get(), &byte, 1);
}

int CacheManager::PollTimeoutMs(Clock::time_point idle_since) const {
  if (!clients_.empty()) return kTickMs;
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
      idle_since + options_.idle_grace - Clock::now());
  return static_cast<int>(std::clamp<int64_t>(left.count(), 0, kTickMs));
}

Status CacheManager::Run() {
  Clock::time_point idle_since = Clock::now();
  while (true) {
    // poll() ignores the entry of a negative fd (no stop_fd given).
    std::vector<pollfd> fds = {{stop_read_.get(), POLLIN, 0},
                               {options_.stop_fd, POLLIN, 0},
                               {listen_fd_.get(), POLLIN, 0}};
    for (const auto& [fd, c] : clients_) fds.push_back({fd, POLLIN, 0});
    int n = ::poll(fds.data(), fds.size(), PollTimeoutMs(idle_since));
    if (n < 0 && errno != EINTR) return Status::FromErrno(errno, "poll");
    if (n <= 0) (void)store_->Flush();  // an idle moment
    if (n > 0 && (fds[0].revents | fds[1].revents) != 0) {
      Log("asked to stop");
      return Status::Ok();
    }
    if (n > 0 && fds[2].revents != 0) AcceptAll();
    for (size_t i = 3; n > 0 && i < fds.size(); ++i) {
      if (fds[i].revents == 0) continue;
      auto it = clients_.find(fds[i].fd);
      if (Serve(it->second.get())) continue;
      Drop(it->second.get());
      clients_.erase(it);
      if (clients_.empty()) idle_since = Clock::now();
    }
    if (!clients_.empty()) continue;
    if (Clock::now() - idle_since < options_.idle_grace) continue;
    if (TryShutdown()) return Status::Ok();
    idle_since = Clock::now();
  }
}

void CacheManager::AcceptAll() {
  while (true) {
    int fd = ::accept4(listen_fd_.get(), nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == ECONNABORTED) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK)
        Log("accept on " + socket_path_ + ": " +
            Status::FromErrno(errno, "").message());
      return;
    }
    timeval timeout{kSendTimeoutSeconds, 0};
    ::setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof(timeout));
    auto c = std::make_unique<Client>();
    c->fd.Reset(fd);
    clients_.emplace(fd, std::move(c));
  }
}

bool CacheManager::Serve(Client* c) {
  // One read per wake-up: poll said it will not block.
  char buf[kReadChunk];
  ssize_t n = ::read(c->fd.get(), buf, sizeof(buf));
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;  // closed (or reset): the client is gone
  c->inbox.append(buf, static_cast<size_t>(n));
  std::string payload;
  while (true) {
    Result<bool> frame = TakeFrame(&c->inbox, &payload);
    if (!frame.ok()) {
      Log("client pid " + std::to_string(c->pid) + ": " +
          frame.status().message());
      return false;
    }
    if (!*frame) return true;
    if (!Answer(c, payload)) return false;
  }
}

bool CacheManager::Answer(Client* c, const std::string& payload) {
  protocol::Request req;
  if (!req.ParseFromString(payload)) {
    Log("client pid " + std::to_string(c->pid) + " sent an unparsable request");
    return false;
  }
  protocol::Reply reply;
  bool keep = Handle(c, req, &reply);
  Status sent = SendFrame(c->fd.get(), reply);
  return keep && sent.ok();
}

bool CacheManager::Handle(Client* c, const protocol::Request& req,
                          protocol::Reply* reply) {
  if (!c->greeted) return Hello(c, req, reply);
  if (req.op_case() == protocol::Request::kHello) {
    SetStatus(Status::InvalidArgument("hello sent twice"), reply);
    return false;
  }
  SetStatus(Dispatch(c, req, reply), reply);
  return true;
}

bool CacheManager::Hello(Client* c, const protocol::Request& req,
                         protocol::Reply* reply) {
  if (req.op_case() != protocol::Request::kHello) {
    SetStatus(Status::InvalidArgument(
                  "the first request to the cache manager must be hello"),
              reply);
    return false;
  }
  const protocol::Hello& hello = req.hello();
  if (hello.protocol_version() != kQuotaProtocolVersion) {
    Status refused = Status::NotSupported(
        "cache manager protocol version " +
        std::to_string(hello.protocol_version()) + " is not supported (" +
        socket_path_ + " speaks version " +
        std::to_string(kQuotaProtocolVersion) + ")");
    Log("refused client pid " + std::to_string(hello.pid()) + ": " +
        refused.message());
    SetStatus(refused, reply);
    return false;
  }
  c->greeted = true;
  c->pid = hello.pid();
  c->name = hello.name();
  const uint64_t limit = store_->usage().limit;
  Log("client pid " + std::to_string(c->pid) + " (" + c->name + ") connected" +
      (hello.quota_limit() != 0 && hello.quota_limit() != limit
           ? "; it asked for a quota limit of " +
                 std::to_string(hello.quota_limit()) +
                 " bytes, the shared "
                 "cache keeps " +
                 std::to_string(limit)
           : ""));
  protocol::HelloReply* out = reply->mutable_hello();
  out->set_protocol_version(kQuotaProtocolVersion);
  out->set_manager_pid(static_cast<uint32_t>(::getpid()));
  out->set_quota_limit(limit);
  SetStatus(Status::Ok(), reply);
  return true;
}

Status CacheManager::Dispatch(Client* c, const protocol::Request& req,
                              protocol::Reply* reply) {
  using R = protocol::Request;
  Digest id;
  if (const std::string* text = ObjectIdOf(req)) {
    CVMFS_ASSIGN_OR_RETURN(id, ParseId(*text));
  }
  switch (req.op_case()) {
    case R::kInsert:
      return Insert(c, req);
    case R::kOpen:
      return Open(
          c, id,
          req.open().speculative() ? Access::kSpeculative : Access::kUse);
    case R::kClose:
      return Close(c, id);
    case R::kPin:
      return Pin(c, id);
    case R::kUnpin:
      return Unpin(c, id);
    case R::kEvict:
      return store_->Evict(id);
    case R::kContains:
      reply->set_contains(store_->Find(id) != nullptr);
      return Status::Ok();
    case R::kCleanup:
      return store_->Cleanup(req.cleanup().target());
    case R::kSetLimit:
      return store_->SetLimit(req.set_limit().limit());
    case R::kRestore:
      return Restore(c, req, reply);
    case R::kList: {
      protocol::EntryList* list = reply->mutable_list();
      for (const QuotaEntry& e : store_->List(req.list().pinned_only())) {
        protocol::Entry* out = list->add_entries();
        out->set_id(e.hash);
        out->set_size(e.size);
        out->set_type(ToWire(e.type));
        out->set_pinned(e.pinned);
        out->set_description(e.description);
      }
      return Status::Ok();
    }
    case R::kUsage: {
      QuotaUsage u = store_->usage();
      protocol::Usage* out = reply->mutable_usage();
      out->set_size(u.size);
      out->set_pinned(u.pinned);
      out->set_limit(u.limit);
      out->set_evictions(u.evictions);
      return Status::Ok();
    }
    default:
      return Status::NotSupported("unknown cache manager request " +
                                  std::to_string(req.op_case()));
  }
}

Status CacheManager::Insert(Client* c, const protocol::Request& req) {
  const protocol::InsertRequest& in = req.insert();
  CVMFS_ASSIGN_OR_RETURN(Digest id, ParseId(in.id()));
  if (!protocol::ObjectType_IsValid(in.type()))
    return Status::InvalidArgument(
        "invalid object type " + std::to_string(in.type()) + " for " + in.id());
  // A known object was stored by another client (or before a reconnect):
  // same content by its name, so the client's rename just refreshes it.
  if (store_->Find(id) == nullptr) {
    ObjectType type = in.type() == protocol::CATALOG ? ObjectType::kCatalog
                                                     : ObjectType::kRegular;
    CVMFS_RETURN_IF_ERROR(
        store_->Insert(id, in.size(), type, in.description(),
                       in.speculative() ? Access::kSpeculative : Access::kUse));
  }
  return Open(c, id, Access::kSpeculative);  // held; Insert ordered it
}

Status CacheManager::Open(Client* c, const Digest& id, Access access) {
  CVMFS_RETURN_IF_ERROR(store_->Open(id, access));
  ++c->held[id].opens;
  return Status::Ok();
}

Status CacheManager::Close(Client* c, const Digest& id) {
  auto it = c->held.find(id);
  if (it == c->held.end() || it->second.opens == 0)
    return Status::InvalidArgument("cannot close " + id.ToString() +
                                   ": not open by this client");
  (void)store_->Close(id);
  if (--it->second.opens == 0 && it->second.pins == 0) c->held.erase(it);
  return Status::Ok();
}

Status CacheManager::Pin(Client* c, const Digest& id) {
  CVMFS_RETURN_IF_ERROR(store_->Pin(id));
  ++c->held[id].pins;
  return Status::Ok();
}

Status CacheManager::Unpin(Client* c, const Digest& id) {
  auto it = c->held.find(id);
  if (it == c->held.end() || it->second.pins == 0)
    return Status::InvalidArgument("cannot unpin " + id.ToString() +
                                   ": not pinned by this client");
  (void)store_->Unpin(id);
  if (--it->second.pins == 0 && it->second.opens == 0) c->held.erase(it);
  return Status::Ok();
}

Status CacheManager::Restore(Client* c, const protocol::Request& req,
                             protocol::Reply* reply) {
  // Each hold is re-registered one by one: refuse a request for more than a
  // client can hold (its open files are bounded by its fd limit) before any
  // work, or a few bytes asking for 2^32 opens stall the manager, and with
  // it every mount on the node.
  uint64_t requested = 0;
  for (const protocol::Hold& hold : req.restore().holds())
    requested += uint64_t{hold.opens()} + hold.pins();
  if (requested > kMaxRestoreHolds)
    return Status::InvalidArgument("restore of " + std::to_string(requested) +
                                   " opens and pins (at most " +
                                   std::to_string(kMaxRestoreHolds) + ")");
  size_t skipped = 0, total = 0;
  for (const protocol::Hold& hold : req.restore().holds()) {
    auto id = Digest::Parse(hold.id());
    for (uint32_t i = 0; i < hold.opens(); ++i, ++total)
      // Re-registering a hold is not a use.
      if (!id.ok() || !Open(c, *id, Access::kSpeculative).ok()) ++skipped;
    for (uint32_t i = 0; i < hold.pins(); ++i, ++total)
      if (!id.ok() || !Pin(c, *id).ok()) ++skipped;
  }
  Log("client pid " + std::to_string(c->pid) + " restored " +
      std::to_string(total - skipped) + " opens and pins (" +
      std::to_string(skipped) +
      " skipped: objects gone or over the pin "
      "threshold)");
  reply->set_message(std::to_string(skipped) + " of " + std::to_string(total) +
                     " holds skipped");
  return Status::Ok();
}

void CacheManager::Drop(Client* c) {
  size_t opens = 0, pins = 0;
  for (const auto& [id, h] : c->held) {
    for (uint32_t i = 0; i < h.opens; ++i) (void)store_->Close(id);
    for (uint32_t i = 0; i < h.pins; ++i) (void)store_->Unpin(id);
    opens += h.opens;
    pins += h.pins;
  }
  c->held.clear();
  if (c->greeted)
    Log("client pid " + std::to_string(c->pid) + " (" + c->name +
        ") disconnected, releasing " + std::to_string(opens) +
        " open objects and " + std::to_string(pins) + " pins");
}

bool CacheManager::TryShutdown() {
  std::string path = cvmfs::JoinPath(options_.dir, kManagerLockName);
  UniqueFd lock(::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  int rc = -1;
  if (lock.valid()) {
    do rc = ::flock(lock.get(), LOCK_EX);
    while (rc != 0 && errno == EINTR);
  }
  if (rc != 0) {
    // The directory was removed (or broken) under us: nobody can reach us
    // through it any more, so stopping is right; a client racing with this
    // finds the connection closed and starts a new manager.
    Log("cannot lock " + path + " (" + Status::FromErrno(errno, "").message() +
        "); stopping anyway");
  } else {
    AcceptAll();  // a client that connected meanwhile keeps us alive
    if (!clients_.empty()) return false;
  }
  ::unlink(socket_path_.c_str());
  listen_fd_.Reset();
  exit_lock_ = std::move(lock);
  Log("no clients for " + std::to_string(options_.idle_grace.count()) +
      " ms; cache manager stops");
  return true;
}

}  // namespace cache
