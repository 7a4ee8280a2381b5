// BundleFetcher: a small file's object taken from its directory's bundle
// (doc/format-bundles.md; doc/client.md, "Bundles").
//
// ObjectFetcher asks Fill() on a cache miss of an object that a bundle may
// hold (ObjectRequest::bundle). The bundle (data/XX/<digest>B, a plain
// content request, not metadata) streams through a BundleReader; each
// member is hashed and inflated as it arrives, exactly as an object fetched
// on its own, and committed to the cache only if its bytes hash to its
// digest and inflate completely within the bound (a member that fails is
// dropped and counted, never cached). Members already cached are skipped.
// Members other than the one asked for enter the cache as speculative (an
// unused one is evicted first, like a prefetch).
//
//   Fill(request, bundle) ─► failed before? ──yes──► false (fetch singly)
//        │ no
//        ▼
//   in flight? ──yes──► wait for it
//        │ no
//        ▼
//   Fetch ─► BundleReader ─► member: hash + inflate ─► txn ─► ok? commit
//                                                               : drop
//        ▼
//   the requested object in the cache? ─► true, or false (fallback)
//
// A bundle that fails (404: a server without bundles; corruption, a member
// that does not verify included; no server) is remembered (kMaxFailed of
// them) and not asked again: the other files it covers are fetched singly,
// at no extra round trip. After kMissingInARow 404s with no bundle found in
// between, the server is taken to have no bundles at all and Fill()
// answers false at once, for the rest of this fetcher's life.
//
// A bundle fetched is remembered with its members (kMaxKnown bundles, 8
// bytes a member): a file that its directory's bundle covers but that is
// not a member (too large, its digest taken by an earlier name) falls back
// at once instead of fetching the bundle again; a member evicted from the
// cache since fetches the bundle again.
//
// A waiter goes on as soon as its own member is committed; the caller that
// leads the download returns when the bundle has ended.
//
// Thread safety: all methods are thread-safe. The fetcher and the cache are
// borrowed and outlive the BundleFetcher.
#ifndef CLIENT_BUNDLE_FETCHER_H_
#define CLIENT_BUNDLE_FETCHER_H_

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "cache/posix_cache.h"
#include "client/event_log.h"
#include "cvmfs/bundle.h"
#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

struct BundleCounters {
  uint64_t fetched = 0;          // bundles downloaded (whole or in part)
  uint64_t bytes = 0;            // their bytes on the wire
  uint64_t members_stored = 0;   // members verified and committed
  uint64_t members_skipped = 0;  // members found in the cache already
  uint64_t members_failed = 0;   // members that did not verify (dropped)
  uint64_t errors = 0;           // bundles that failed (404, corrupt, ...)
  uint64_t fallbacks = 0;        // objects fetched singly after all
};

// What Fill() needs of the object asked for.
struct BundleWant {
  Digest digest;
  bool compressed = true;        // stored zlib-compressed
  std::optional<uint64_t> size;  // its uncompressed size, if known
  std::string description;       // its path, for the cache and logs
  bool speculative = false;      // a prefetch
};

class BundleFetcher {
 public:
  // A member nobody vouches for the size of (every member but the one
  // asked for) may inflate to at most this many bytes; a larger one is
  // dropped (and fetched singly when read).
  static constexpr uint64_t kMaxMemberInflated = 64ull << 20;
  static constexpr size_t kMaxFailed = 4096;
  static constexpr int kMissingInARow = 8;
  static constexpr size_t kMaxKnown = 4096;

  BundleFetcher(Fetcher* fetcher, cache::PosixCache* cache);

  // Fetches `bundle` (once for all concurrent callers) unless it failed
  // before; true if `want` is in the cache afterwards.
  bool Fill(const BundleWant& want, const BundleRef& bundle) EXCLUDES(mu_);

  BundleCounters counters() const;
  void set_logger(EventLog log) { log_ = std::move(log); }

 private:
  struct InFlight {  // fields guarded by mu_
    bool done = false;
    // Members committed so far (DigestHasher values): a waiter whose
    // object is among them goes on before the bundle has ended.
    std::unordered_set<size_t> stored;
  };
  // The members of a bundle fetched: DigestHasher values, sorted.
  using Members = std::vector<size_t>;
  // Downloads and stores the members (listed in `members` if its header
  // was read); the status of the bundle as a whole.
  Status Download(const BundleWant& want, const BundleRef& bundle,
                  InFlight* flight, Members* members) EXCLUDES(mu_);
  // Download(), then what it taught: the members, a failure, the run of
  // missing bundles.
  void DownloadAndRecord(const BundleWant& want, const BundleRef& bundle,
                         const std::string& key, InFlight* flight)
      EXCLUDES(mu_);

  Fetcher* fetcher_;          // borrowed
  cache::PosixCache* cache_;  // borrowed
  EventLog log_;

  // Guards in_flight_, failed_, missing_in_a_row_; never held during a
  // download; leaf lock.
  cvmfs::Mutex mu_;
  std::condition_variable done_cv_;
  std::map<std::string, std::shared_ptr<InFlight>> in_flight_ GUARDED_BY(mu_);
  std::unordered_set<std::string> failed_ GUARDED_BY(mu_);
  int missing_in_a_row_ GUARDED_BY(mu_) = 0;
  std::unordered_map<std::string, Members> known_ GUARDED_BY(mu_);

  std::atomic<uint64_t> fetched_{0}, bytes_{0}, stored_{0}, skipped_{0},
      member_failed_{0}, errors_{0}, fallbacks_{0};
};

}  // namespace cvmfs::client

#endif  // CLIENT_BUNDLE_FETCHER_H_
