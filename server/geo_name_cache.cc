#include "server/geo_name_cache.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/mutex.h"

namespace server {
namespace {

class NameCache {
 public:
  NameCache(NameResolver inner, NameCacheOptions options)
      : inner_(std::move(inner)),
        options_(options),
        clock_(options.clock ? options.clock : cvmfs::SteadyClock()) {}

  std::vector<std::string> Resolve(const std::string& name) {
    const cvmfs::Clock::TimePoint now = clock_->Now();
    std::vector<std::string> stale;
    {
      cvmfs::MutexLock lock(&mu_);
      auto it = entries_.find(name);
      if (it != entries_.end()) {
        if (now - it->second.stamp < options_.ttl) return it->second.addresses;
        stale = it->second.addresses;
      }
    }
    std::vector<std::string> fresh = inner_(name);
    if (fresh.empty()) fresh = std::move(stale);
    cvmfs::MutexLock lock(&mu_);
    auto it = entries_.find(name);
    if (it == entries_.end()) {
      if (options_.max_entries == 0) return fresh;
      while (entries_.size() >= options_.max_entries) EvictOldestLocked();
      entries_[name] = Entry{now, fresh};
    } else {
      it->second = Entry{now, fresh};
    }
    return fresh;
  }

 private:
  struct Entry {
    cvmfs::Clock::TimePoint stamp;
    std::vector<std::string> addresses;  // empty: the lookup failed
  };

  void EvictOldestLocked() REQUIRES(mu_) {
    auto oldest = entries_.begin();
    for (auto it = entries_.begin(); it != entries_.end(); ++it)
      if (it->second.stamp < oldest->second.stamp) oldest = it;
    entries_.erase(oldest);
  }

  const NameResolver inner_;
  const NameCacheOptions options_;
  const cvmfs::Clock* const clock_;
  cvmfs::Mutex mu_;  // guards entries_; a leaf lock
  std::map<std::string, Entry> entries_ GUARDED_BY(mu_);
};

}  // namespace

NameResolver CachingResolver(NameResolver inner, NameCacheOptions options) {
  auto cache = std::make_shared<NameCache>(std::move(inner), options);
  return [cache](const std::string& name) { return cache->Resolve(name); };
}

}  // namespace server
