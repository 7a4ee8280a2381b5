#include "cvmfs/network/dns_resolver.h"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <algorithm>
#include <condition_variable>
#include <thread>

#include "cvmfs/mutex.h"

namespace cvmfs {
namespace {

void AddUnique(std::vector<std::string>* list, const char* address) {
  if (std::find(list->begin(), list->end(), address) == list->end())
    list->emplace_back(address);
}

void AddAddress(const addrinfo* ai, ResolvedHost* host) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (ai->ai_family == AF_INET) {
    auto* sin = reinterpret_cast<const sockaddr_in*>(ai->ai_addr);
    if (inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text)))
      AddUnique(&host->ipv4, text);
  } else if (ai->ai_family == AF_INET6) {
    auto* sin6 = reinterpret_cast<const sockaddr_in6*>(ai->ai_addr);
    if (inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text)))
      AddUnique(&host->ipv6, text);
  }
}

// getaddrinfo for `name`, blocking.
Result<ResolvedHost> GetAddrInfo(const std::string& name) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_CANONNAME;
  addrinfo* head = nullptr;
  const int rc = getaddrinfo(name.c_str(), nullptr, &hints, &head);
  if (rc != 0) {
    const bool missing = rc == EAI_NONAME || rc == EAI_NODATA;
    const std::string msg = "cannot resolve " + name + ": " + gai_strerror(rc);
    return missing ? Status::NotFound(msg) : Status::Unavailable(msg);
  }
  ResolvedHost host;
  host.name = head->ai_canonname ? head->ai_canonname : name;
  for (const addrinfo* ai = head; ai; ai = ai->ai_next) AddAddress(ai, &host);
  freeaddrinfo(head);
  if (host.ipv4.empty() && host.ipv6.empty())
    return Status::NotFound("no address for " + name);
  return host;
}

// One lookup, shared by the waiting caller and the thread that runs it.
struct Lookup {
  Mutex mu;
  std::condition_variable cv;
  bool done GUARDED_BY(mu) = false;
  Result<ResolvedHost> result GUARDED_BY(mu) = Status::Unavailable("pending");
};

class SystemDnsResolver : public DnsResolver {
 public:
  explicit SystemDnsResolver(SystemDnsOptions o) : options_(o) {}

  Result<ResolvedHost> Resolve(const std::string& name) override {
    Result<ResolvedHost> last = Status::Unavailable("no attempt");
    for (int attempt = 0; attempt <= std::max(0, options_.retries); ++attempt) {
      last = ResolveOnce(name);
      if (last.ok() || last.status().code() != Status::Code::kUnavailable)
        break;
    }
    return last;
  }

 private:
  // getaddrinfo on a thread of its own, waited for at most timeout_ms:
  // getaddrinfo cannot be interrupted, so a lookup that outlives the wait
  // finishes on its thread, into the state it shares, and is dropped.
  Result<ResolvedHost> ResolveOnce(const std::string& name) {
    auto lookup = std::make_shared<Lookup>();
    std::thread([lookup, name] {
      Result<ResolvedHost> r = GetAddrInfo(name);
      MutexLock lock(&lookup->mu);
      lookup->result = std::move(r);
      lookup->done = true;
      lookup->cv.notify_all();
    }).detach();
    const auto deadline = std::chrono::steady_clock::now() +
                          std::chrono::milliseconds(options_.timeout_ms);
    MutexLock lock(&lookup->mu);
    while (!lookup->done) {
      if (lock.WaitUntil(&lookup->cv, deadline) == std::cv_status::timeout &&
          !lookup->done)
        return Status::Unavailable("resolving " + name + " timed out after " +
                                   std::to_string(options_.timeout_ms) + " ms");
    }
    return lookup->result;
  }

  const SystemDnsOptions options_;
};

}  // namespace

std::unique_ptr<DnsResolver> NewSystemDnsResolver(SystemDnsOptions options) {
  return std::make_unique<SystemDnsResolver>(options);
}

}  // namespace cvmfs
