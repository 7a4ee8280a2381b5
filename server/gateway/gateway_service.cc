#include "server/gateway/gateway_service.h"

#include <openssl/rand.h>

#include <nlohmann/json.hpp>
#include <utility>
#include <vector>

#include "cvmfs/base64.h"
#include "cvmfs/gateway_key.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_pack.h"
#include "cvmfs/text.h"

namespace gateway {

namespace {

using nlohmann::json;

constexpr std::string_view kApiRoot = "/api/v1";

HttpReply Json(const json& j, int status = 200) {
  HttpReply reply;
  reply.status = status;
  // Never aborts (-fno-exceptions): bytes that are not UTF-8 become U+FFFD.
  reply.body = j.dump(-1, ' ', false, json::error_handler_t::replace);
  return reply;
}

HttpReply Error(const std::string& reason, int status = 200) {
  return Json({{"status", "error"}, {"reason", reason}}, status);
}

std::string Header(const HttpRequest& r, const std::string& name) {
  auto it = r.headers.find(name);
  return it == r.headers.end() ? "" : it->second;
}

// A JSON object body, or nullopt.
std::optional<json> ParseObject(std::string_view text) {
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

std::string StringOf(const json& j, const char* name) {
  auto it = j.find(name);
  if (it == j.end()) return "";
  if (it->is_string()) return it->get<std::string>();
  if (it->is_number_integer()) return std::to_string(it->get<int64_t>());
  return "";
}

// Seconds left, as Go's time.Duration prints a whole number of seconds.
std::string Remaining(cvmfs::Clock::Duration d) {
  auto s = std::chrono::duration_cast<std::chrono::seconds>(d).count();
  return std::to_string(s < 0 ? 0 : s) + "s";
}

json LeaseJson(const Lease& l, const cvmfs::Clock* clock) {
  return {{"path", l.path.ToString()},
          {"key_id", l.key_id},
          {"time_remaining", Remaining(l.expires - clock->Now())}};
}

std::string LeaseReason(const cvmfs::Status& s) {
  return s.IsNotFound() ? "invalid_token" : s.message();
}

}  // namespace

std::string RandomLeaseToken() {
  unsigned char bytes[32];
  if (RAND_bytes(bytes, sizeof(bytes)) != 1) return "";
  return cvmfs::Base64(
      std::string_view(reinterpret_cast<const char*>(bytes), sizeof(bytes)));
}

GatewayService::GatewayService(GatewayOptions options)
    : options_(std::move(options)),
      leases_(options_.clock ? options_.clock : cvmfs::SteadyClock(),
              options_.max_lease_time, options_.lease_store) {
  if (!options_.clock) options_.clock = cvmfs::SteadyClock();
  if (!options_.new_token) options_.new_token = RandomLeaseToken;
}

std::optional<HttpReply> GatewayService::Authorize(const HttpRequest& r,
                                                   std::string_view input,
                                                   bool admin,
                                                   std::string* key_id) {
  auto sig = cvmfs::ParseGatewayAuthorization(Header(r, "authorization"));
  if (!sig.ok())
    return Error(admin ? "invalid_authorization_header" : "invalid_hmac");
  auto key = options_.access.keys.find(sig->key_id);
  if (key == options_.access.keys.end())
    return Error(admin ? "invalid_key" : "invalid_hmac");
  if (admin && !key->second.admin) return Error("no_admin_key");
  if (!cvmfs::GatewayHmacMatches(*sig, key->second.secret, input))
    return Error("invalid_hmac");
  *key_id = sig->key_id;
  return std::nullopt;
}

cvmfs::Mutex* GatewayService::CommitMutex(const std::string& fqrn) {
  cvmfs::MutexLock lock(&mu_);
  std::unique_ptr<cvmfs::Mutex>& m = commit_mutexes_[fqrn];
  if (!m) m = std::make_unique<cvmfs::Mutex>();
  return m.get();
}

HttpReply GatewayService::Handle(const HttpRequest& r) {
  if (r.path.compare(0, kApiRoot.size(), kApiRoot) != 0)
    return Error("not_found", 404);
  std::string rest = r.path.substr(kApiRoot.size());
  auto under = [&](std::string_view prefix, std::string* tail) {
    if (rest == prefix) {
      tail->clear();
      return true;
    }
    if (rest.compare(0, prefix.size(), prefix) == 0 &&
        rest.size() > prefix.size() && rest[prefix.size()] == '/') {
      *tail = rest.substr(prefix.size() + 1);
      return true;
    }
    return false;
  };
  std::string tail;
  const std::string& m = r.method;
  if ((rest.empty() || rest == "/") && m == "GET")
    return Json({{"status", "ok"},
                 {"api_version", std::to_string(kGatewayApiVersion)}});
  if (under("/repos", &tail) && m == "GET") return Repos(tail);
  if (under("/repos", &tail) && m == "POST" && !tail.empty())
    return AdminSetRepoEnabled(r, tail);
  if (under("/leases", &tail)) {
    if (m == "GET") return GetLeases(tail);
    if (m == "POST") return tail.empty() ? NewLease(r) : CommitLease(r, tail);
    if (m == "DELETE" && !tail.empty()) return DropLease(r, tail);
    return Error("invalid method", 405);
  }
  if (under("/payloads", &tail) && m == "POST") return Payload(r, tail);
  if (rest == "/notifications/publish" && m == "POST") return Publish(r);
  if (rest == "/notifications/subscribe" && m == "GET") return Subscribe(r);
  if (under("/leases-by-path", &tail) && m == "DELETE")
    return AdminDropByPath(r, tail);
  if (rest == "/gc" && m == "POST") return AdminGc(r);
  return Error("not_found", 404);
}

bool GatewayService::RepoEnabled(const std::string& fqrn) {
  cvmfs::MutexLock lock(&mu_);
  return disabled_.count(fqrn) == 0;
}

HttpReply GatewayService::Repos(const std::string& fqrn) {
  auto one = [this](const std::string& name, const RepositoryAccess& a) {
    return json{{"keys", a.key_paths}, {"enabled", RepoEnabled(name)}};
  };
  if (!fqrn.empty()) {
    auto it = options_.access.repos.find(fqrn);
    if (it == options_.access.repos.end()) return Error("invalid_repo");
    return Json({{"status", "ok"}, {"data", one(it->first, it->second)}});
  }
  json data = json::object();
  for (const auto& [name, access] : options_.access.repos)
    data[name] = one(name, access);
  return Json({{"status", "ok"}, {"data", data}});
}

// As CVMFS's gateway: {"enable":<bool>}; with "wait" a disable takes the
// repository's commit lock first, so that a commit in progress ends before
// the answer. Leases already held stay, but cannot commit while disabled.
HttpReply GatewayService::AdminSetRepoEnabled(const HttpRequest& r,
                                              const std::string& fqrn) {
  std::string key_id;
  if (auto fail = Authorize(r, r.body, true, &key_id)) return *fail;
  std::optional<json> msg = ParseObject(r.body);
  if (!msg) return Error("invalid request body", 400);
  auto enable = msg->find("enable");
  if (enable == msg->end() || !enable->is_boolean())
    return Error("invalid request body", 400);
  if (options_.access.repos.count(fqrn) == 0) return Error("invalid_repo");
  auto wait = msg->find("wait");
  const bool locked = !enable->get<bool>() && wait != msg->end() &&
                      wait->is_boolean() && wait->get<bool>();
  auto set = [this, &fqrn, on = enable->get<bool>()] {
    cvmfs::MutexLock lock(&mu_);
    if (on)
      disabled_.erase(fqrn);
    else
      disabled_.insert(fqrn);
  };
  if (locked) {
    cvmfs::MutexLock commit_lock(CommitMutex(fqrn));
    set();
  } else {
    set();
  }
  return Json({{"status", "ok"}});
}

HttpReply GatewayService::NewLease(const HttpRequest& r) {
  std::string key_id;
  if (auto fail = Authorize(r, r.body, false, &key_id)) return *fail;
  std::optional<json> msg = ParseObject(r.body);
  if (!msg) return Error("invalid request body", 400);
  std::optional<uint64_t> version =
      cvmfs::ParseUint64(StringOf(*msg, "api_version"), 9);
  if (!version) return Error("invalid request body", 400);
  if (*version < kGatewayMinApiVersion)
    return Error("incompatible request version: " + std::to_string(*version) +
                 ", min version: " + std::to_string(kGatewayMinApiVersion));
  auto path = publisher::ParseLeasePath(StringOf(*msg, "path"));
  if (!path.ok()) return Error(path.status().message());
  cvmfs::Status access = options_.access.Check(key_id, path->fqrn, path->path);
  if (!access.ok()) return Error(access.message());
  if (!RepoEnabled(path->fqrn)) return Error("repo_disabled");
  std::string token;
  if (auto refused = GrantLease(*path, key_id, /*durable=*/true, &token))
    return *refused;
  int64_t max = *version < kGatewayApiVersion ? static_cast<int64_t>(*version)
                                              : kGatewayApiVersion;
  return Json(
      {{"status", "ok"}, {"session_token", token}, {"max_api_version", max}});
}

HttpReply GatewayService::GetLeases(const std::string& token) {
  if (!token.empty()) {
    auto lease = leases_.Find(token);
    if (!lease.ok()) return Error(LeaseReason(lease.status()));
    return Json(
        {{"status", "ok"}, {"data", LeaseJson(*lease, options_.clock)}});
  }
  json data = json::object();
  for (const Lease& l : leases_.List())
    data[l.path.ToString()] = LeaseJson(l, options_.clock);
  return Json({{"status", "ok"}, {"data", data}});
}

HttpReply GatewayService::DropLease(const HttpRequest& r,
                                    const std::string& token) {
  std::string key_id;
  if (auto fail = Authorize(r, token, false, &key_id)) return *fail;
  cvmfs::Status s = leases_.Drop(token);
  if (!s.ok()) return Error(LeaseReason(s));
  return Json({{"status", "ok"}});
}

HttpReply GatewayService::AdminDropByPath(const HttpRequest& r,
                                          const std::string& path_text) {
  std::string key_id;
  if (auto fail = Authorize(r, r.path, true, &key_id)) return *fail;
  auto path = publisher::ParseLeasePath(path_text);
  if (!path.ok()) return Error(path.status().message());
  if (leases_.DropByPath(*path) == 0) return Error("invalid_path");
  return Json({{"status", "ok"}});
}

std::optional<HttpReply> GatewayService::GrantLease(
    const publisher::LeasePath& path, const std::string& key_id, bool durable,
    std::string* token) {
  *token = options_.new_token();
  if (token->empty()) return Error("could not make a lease token");
  Lease holder;
  auto lease = leases_.Acquire(path, key_id, *token, &holder, durable);
  if (lease.ok()) return std::nullopt;
  if (lease.status().code() != cvmfs::Status::Code::kBusy)
    return Error(lease.status().message());
  return Json(
      {{"status", "path_busy"},
       {"time_remaining", Remaining(holder.expires - options_.clock->Now())},
       {"holder", holder.key_id},
       {"lease_path", holder.path.ToString()}});
}

HttpReply GatewayService::AdminGc(const HttpRequest& r) {
  std::string key_id;
  if (auto fail = Authorize(r, r.body, true, &key_id)) return *fail;
  std::optional<json> msg = ParseObject(r.body);
  if (!msg) return Error("invalid request body", 400);
  RepositoryGcRequest request;
  request.fqrn = StringOf(*msg, "repo");
  if (options_.access.repos.count(request.fqrn) == 0)
    return Error("invalid_repo");
  // As CVMFS's gateway turns the request into `cvmfs_server gc` options:
  // num_revisions 0 (or absent) and an empty timestamp are not given.
  if (auto n = msg->find("num_revisions"); n != msg->end() && !n->is_null()) {
    if (!n->is_number_integer() || n->get<int64_t>() < 0)
      return Error("num_revisions must be a whole number >= 0", 400);
    if (n->get<int64_t>() > 0)
      request.policy.keep_revisions = n->get<uint64_t>();
  }
  if (std::string t = StringOf(*msg, "timestamp"); !t.empty()) {
    if (request.policy.keep_revisions)
      return Error("give either num_revisions or timestamp, not both", 400);
    auto since = publisher::ParseGcTime(
        t, std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
               .count());
    if (!since.ok()) return Error(since.status().message(), 400);
    request.policy.keep_since = *since;
  }
  if (auto d = msg->find("dry_run"); d != msg->end() && d->is_boolean())
    request.dry_run = d->get<bool>();
  if (auto v = msg->find("verbose"); v != msg->end() && v->is_boolean())
    request.list = v->get<bool>();
  if (!options_.gc) return Error("gc is not available on this gateway");

  // No commit meanwhile, and no lease: objects uploaded for a lease that is
  // not committed yet belong to no revision and would be swept.
  cvmfs::MutexLock commit_lock(CommitMutex(request.fqrn));
  std::string token;
  if (auto refused =
          GrantLease(publisher::LeasePath{request.fqrn, "/"},
                     "gc (" + key_id + ")", /*durable=*/false, &token))
    return *refused;
  auto output = options_.gc(request);
  (void)leases_.Drop(token);
  if (!output.ok()) return Error(output.status().ToString());
  return Json({{"status", "ok"}, {"output", *output}});
}

HttpReply GatewayService::Payload(const HttpRequest& r,
                                  const std::string& path_token) {
  std::optional<uint64_t> msg_size =
      cvmfs::ParseUint64(Header(r, "message-size"), 9);
  if (!msg_size || *msg_size > r.body.size())
    return Error("missing message-size header", 400);
  std::string_view body(r.body);
  std::string_view message = body.substr(0, *msg_size);
  std::optional<json> msg = ParseObject(message);
  if (!msg) return Error("invalid request body", 400);
  std::string token =
      path_token.empty() ? StringOf(*msg, "session_token") : path_token;
  std::string key_id;
  if (auto fail =
          Authorize(r, path_token.empty() ? message : token, false, &key_id))
    return *fail;
  auto lease = leases_.Find(token);
  if (!lease.ok()) return Error(LeaseReason(lease.status()));
  std::optional<uint64_t> header_size =
      cvmfs::ParseUint64(StringOf(*msg, "header_size"), 18);
  auto digest = cvmfs::Digest::Parse(StringOf(*msg, "payload_digest"));
  if (!header_size || !digest.ok()) return Error("invalid request body", 400);
  auto entries =
      cvmfs::ParseObjectPack(body.substr(*msg_size), *header_size, *digest);
  if (!entries.ok()) return Error(entries.status().message());
  auto store = options_.store(lease->path.fqrn);
  if (!store.ok()) return Error(store.status().message());
  for (const cvmfs::ObjectPackEntry& e : *entries) {
    if (cvmfs::HashString(e.id.digest.algorithm, e.bytes) != e.id.digest)
      return Error("object " + cvmfs::ObjectPackId(e.id) +
                   " does not match its bytes");
    std::string name = cvmfs::ObjectPath(e.id.digest, e.id.suffix);
    if (e.kind == cvmfs::ObjectPackEntry::Kind::kNamed) {
      // A file the publisher names itself (CVMFS's publisher uploads a
      // local file so). Only under data/, whose names stand for their
      // contents: the signed files at the top (manifest, whitelist,
      // certificate, reflog) are the gateway's to write.
      if (!cvmfs::ParseObjectPath(e.name).ok())
        return Error("named object '" + e.name +
                     "' refused: only objects under data/ may be uploaded");
      name = e.name;
    }
    auto put = (*store)->PutIfAbsent(name, e.bytes);
    if (!put.ok()) return Error(put.status().ToString());
  }
  return Json({{"status", "ok"}});
}

HttpReply GatewayService::CommitLease(const HttpRequest& r,
                                      const std::string& token) {
  std::string key_id;
  if (auto fail = Authorize(r, token, false, &key_id)) return *fail;
  std::optional<json> msg = ParseObject(r.body);
  if (!msg) return Error("invalid request body", 400);
  auto old_root = cvmfs::Digest::Parse(StringOf(*msg, "old_root_hash"));
  auto new_root = cvmfs::Digest::Parse(StringOf(*msg, "new_root_hash"));
  if (!old_root.ok() || !new_root.ok())
    return Error("invalid request body", 400);
  auto first = leases_.Find(token);
  if (!first.ok()) return Error(LeaseReason(first.status()));
  cvmfs::MutexLock commit_lock(CommitMutex(first->path.fqrn));
  // Checked again under the commit lock: it may have expired meanwhile.
  auto lease = leases_.Find(token);
  if (!lease.ok()) return Error(LeaseReason(lease.status()));
  if (!RepoEnabled(lease->path.fqrn)) return Error("repo_disabled");
  LeaseCommitRequest request{lease->path, *old_root, *new_root,
                             StringOf(*msg, "tag_name"),
                             StringOf(*msg, "tag_description")};
  auto revision = options_.commit(request);
  if (!revision.ok()) return Error(revision.status().ToString());
  (void)leases_.Drop(token);
  return Json({{"status", "ok"}, {"final_revision", *revision}});
}

HttpReply GatewayService::Publish(const HttpRequest& r) {
  // Unauthenticated, as CVMFS's: subscribers verify the manifest's signature.
  std::optional<json> msg = ParseObject(r.body);
  if (!msg) return Error("invalid request body", 400);
  std::string repo = StringOf(*msg, "repository");
  if (repo.empty()) return Error("invalid request body", 400);
  notifications_.Publish(repo, r.body);
  return Json({{"status", "ok"}});
}

HttpReply GatewayService::Subscribe(const HttpRequest& r) {
  // CVMFS's subscribers send {"version":1,"repository":"<fqrn>"} as the
  // body of the GET; ?repository= is accepted too.
  std::string repo;
  if (std::optional<json> msg = ParseObject(r.body))
    repo = StringOf(*msg, "repository");
  if (auto q = r.query.find("repository"); repo.empty() && q != r.query.end())
    repo = q->second;
  if (repo.empty()) return Error("invalid request body", 400);
  auto cursor = std::make_shared<uint64_t>(notifications_.Cursor(repo));
  HttpReply reply;
  reply.content_type = "text/event-stream";
  NotificationHub* hub = &notifications_;
  auto timeout = options_.notification_timeout;
  reply.stream = [hub, repo, cursor, timeout]() -> std::optional<std::string> {
    std::optional<std::string> next =
        hub->WaitNext(repo, cursor.get(), timeout);
    if (!next) return std::nullopt;
    return "data: " + *next + "\n\n";
  };
  return reply;
}

}  // namespace gateway
