// ObjectFetcher: content-addressed objects into the local cache, verified.
//
// The only way the client puts bytes into the cache. An object is looked up
// in the cache first; on a miss it is downloaded (through the Fetcher, with
// its proxies, hosts and retries), hashed while it streams in, inflated when
// stored compressed, and written to a cache transaction that is committed
// only when the hash of the received bytes equals the requested digest. A
// mismatch is retried once with "Pragma: no-cache" (a proxy may hold a bad
// copy); a second mismatch counts as a host failure (the host failover hook
// below decides whether another host is tried, with no-cache); when no host
// is left it fails with Corruption and nothing is kept.
//
// Inflation is bounded (doc/client.md, "Objects that inflate too much"):
// an object whose uncompressed size is known (the catalog's size of a
// file, a chunk's size) may produce exactly that many bytes; one whose size
// nobody vouches for (catalogs, history, certificate, lists) at most
// max_unsized_bytes(). A stream that inflates beyond its bound is stopped at
// the first piece that would exceed it, before that piece is written: the
// object fails as Corruption, handled like a hash mismatch (no-cache once,
// then the host failover hook), and its temporary file is removed. A zlib
// bomb thus costs the bytes of its bound, never a cache's worth of disk.
//
// An object of a known size up to kMaxGatheredBytes is gathered rather than
// inflated as it streams, and inflated whole (libdeflate) only once its
// hash matched (object_inflater.h): nothing of a corrupted one reaches txn.
//
// clang-format off
//   Open(digest) ─► cache hit? ──yes──► handle
//        │ no
//        ▼
//   in flight already? ──yes──► wait for that download, then open from cache
//        │ no
//        ▼
//   Fetch ─► sink: hash(compressed) + inflate ─► txn ─► digest ok?
//                                                        │ yes     │ no
//                                                        ▼         ▼
//                                                      commit     drop
// clang-format on
//
// Concurrent requests for one object are collapsed into one download; the
// waiters then open the committed object. A waiter whose leader was a
// speculative (prefetch) download that failed downloads on its own: a
// prefetch's failure is never a reader's.
//
// Thread safety: all methods are thread-safe. The fetcher and cache are
// borrowed and must outlive the ObjectFetcher.
#ifndef CLIENT_OBJECT_FETCHER_H_
#define CLIENT_OBJECT_FETCHER_H_

#include <atomic>
#include <condition_variable>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "cache/posix_cache.h"
#include "client/bundle_fetcher.h"
#include "client/event_log.h"
#include "client/prefetch/round_trip_estimate.h"
#include "cvmfs/bundle.h"
#include "cvmfs/clock.h"
#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/network/fetcher.h"
#include "cvmfs/object_inflater.h"
#include "cvmfs/object_name.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

// Where an external file's content is (doc/client.md, "External data"):
// its path in the repository, below each CVMFS_EXTERNAL_URL, and for a
// chunk the byte range of the chunk in that file.
struct ExternalLocation {
  std::string path;  // "/dir/file"
  uint64_t offset = 0;
  uint64_t size = 0;  // 0: the whole file
};

struct ObjectRequest {
  Digest digest;
  ObjectSuffix suffix = ObjectSuffix::kNone;
  bool compressed = true;  // stored zlib-compressed on the server
  cache::ObjectType type = cache::ObjectType::kRegular;
  std::string description;  // repository path, for logs and `cache list`
  // The uncompressed size if known (a file's or chunk's size in the
  // catalog): the object must inflate to exactly this many bytes.
  std::optional<uint64_t> expected_size;
  // A background prefetch (prefetcher.h): it never makes the cache let go
  // of open files to find room, and when it fails, the demand reads that
  // waited for it try on their own instead of sharing its failure.
  bool speculative = false;
  // Set for the content of a file flagged external in its catalog: fetched
  // by path from the external servers rather than by hash from the
  // repository's, verified and cached by hash all the same.
  std::optional<ExternalLocation> external;
  // Set for a small file's content (bundle_index.h, AttachBundle): the
  // bundle that may hold the object, asked only on a cache miss (a catalog
  // query the first time per directory); nullopt: none.
  std::function<std::optional<BundleRef>()> bundle;

  // The expected size for budgets and estimates (0 when unknown).
  uint64_t size_hint() const { return expected_size.value_or(0); }
};

struct FetchCounters {
  uint64_t hits = 0;       // served from the cache
  uint64_t downloads = 0;  // objects downloaded and committed
  uint64_t collapsed = 0;  // requests that waited for another's download
  uint64_t io_errors = 0;  // failed requests (network, corruption, no space)
  uint64_t bytes_downloaded = 0;  // bytes on the wire (compressed)
  // Time the downloads took, added up over all of them (parallel ones
  // each count): bytes_downloaded over it is the average speed of one
  // transfer, CVMFS's user.speed.
  uint64_t download_ns = 0;
  BundleCounters bundles;  // all zero while bundles are off
};

class ObjectFetcher {
 public:
  ObjectFetcher(Fetcher* fetcher, cache::PosixCache* cache);

  // The cached object, downloading and verifying it first if needed.
  // NotFound if the server does not have it; Corruption if it never
  // verified; Unavailable if no server could be reached; NoSpace if the
  // cache cannot hold it.
  Result<cache::CacheHandle> Open(const ObjectRequest& request) EXCLUDES(mu_);

  // Open(), with a missing object reported as IoError: for callers that
  // found the object's hash in a catalog, a 404 means a broken server, not a
  // missing file (the kernel must never cache it as "no such file").
  Result<cache::CacheHandle> OpenReferenced(const ObjectRequest& request);

  // Downloads and verifies an object into memory, bypassing the cache (for
  // the manifest's companions before a cache exists, and for tests).
  Result<std::string> FetchToMemory(const ObjectRequest& request);

  FetchCounters counters() const;

  // Bundles (doc/client.md, "Bundles"; bundle_fetcher.h): a miss of an
  // object whose request names a bundle fetches that bundle, and the
  // object on its own only if it is not in the cache afterwards. Off until
  // called; call once, after set_logger and before the first Open.
  void EnableBundles();
  bool bundles_enabled() const { return bundles_ != nullptr; }

  // Where external objects (ObjectRequest::external) are downloaded from:
  // the CVMFS_EXTERNAL_URL servers with their own proxies and timeouts.
  // Borrowed; null (the default) fails them with IoError naming
  // CVMFS_EXTERNAL_URL. Set before the first Open.
  void set_external_fetcher(Fetcher* external) { external_ = external; }

  // The most bytes an object without an expected size may inflate to: a
  // catalog far beyond any real one (CVMFS advises catalogs of at most a
  // few hundred MB), and a bound on what a bomb can write into txn/.
  static constexpr uint64_t kMaxUnsizedBytes = uint64_t{1} << 30;  // 1 GiB
  uint64_t max_unsized_bytes() const { return max_unsized_bytes_; }
  // Lowers (or raises) that bound; for tests. Call before the first Open.
  void set_max_unsized_bytes(uint64_t bytes) { max_unsized_bytes_ = bytes; }

  // How long a download of a small object (up to kLatencySampleSize, one
  // whose time is mostly the round trip) takes on the link, in
  // microseconds; 0 before the first. Two windowed minimums
  // (round_trip_estimate.h) of the downloads, demand reads and prefetches
  // alike, and the smaller one counts:
  //   * of all of them: queueing only lengthens a download, and a busy
  //     client makes many, so the shortest is near the link's round trip;
  //   * of the quiet ones, during which at most kQuietDownloads others
  //     ran: on a loopback or LAN server under load even the shortest of
  //     32 crowded downloads is queueing, not latency (64 parallel readers
  //     on two cores with no added latency: 5 to 48 ms), and while many
  //     downloads run all the time this one keeps what the quiet ones (and
  //     the mount's manifest download) said.
  static constexpr uint64_t kLatencySampleSize = 64 << 10;
  static constexpr int kQuietDownloads = 2;
  uint64_t round_trip_us() const;
  // Adds a round trip measured elsewhere (the mount times its manifest
  // download: the link is known before the first miss).
  void NoteRoundTrip(Clock::Duration took) {
    quiet_round_trip_.Add(took);
    any_round_trip_.Add(took);
  }
  // Demand requests that missed the cache (counted when the miss is found,
  // before the download): whether misses happen at all.
  uint64_t demand_misses() const { return demand_misses_.load(); }
  // Demand requests waiting for a download now (leading it or collapsed
  // onto another): how much parallelism the readers make by themselves.
  int demand_waiting() const { return demand_waiting_.load(); }
  // Objects of a known size up to kMaxGatheredBytes (a chunk is 4-16 MiB)
  // are inflated whole once verified, with libdeflate (object_inflater.h),
  // as long as those in progress hold at most kWholeInflateBytes of memory
  // (2x their size each); the others are inflated as they stream in.
  static constexpr uint64_t kMaxGatheredBytes = 32 << 20;
  static constexpr uint64_t kWholeInflateBytes = 256 << 20;
  uint64_t whole_inflate_bytes_left() const {
    return whole_inflate_budget_.left();
  }

  // Where download times are read (tests); borrowed, never null.
  void set_clock(const Clock* clock) { clock_ = clock; }
  const Clock* clock() const { return clock_; }

  // Where failed downloads (errors: the causes of EIO), retries of
  // corrupted ones and a full cache (warnings) are reported; called from
  // the failing request's thread.
  void set_logger(EventLog log) { log_ = std::move(log); }
  // Called when a server answers 404 for an object, or serves it corrupted
  // even with no-cache, with the number of earlier calls for this download;
  // returning true retries (after switching host).
  // Called once when the cache has no room for an object (NoSpace); returns
  // how many files it let go. The download is then tried again.
  void set_space_reclaimer(std::function<size_t()> f) {
    space_reclaimer_ = std::move(f);
  }
  void set_missing_object_failover(std::function<bool(int attempt)> f) {
    missing_failover_ = std::move(f);
  }

 private:
  // Its fields are read and written with mu_ held (not annotated: a nested
  // struct cannot name the enclosing object's mutex).
  struct InFlight {
    bool done = false;
    bool speculative = false;  // the leader is a prefetch
    Status status;
  };
  // `bundled`: set when a bundle brought the object.
  Status Download(const ObjectRequest& request, bool* bundled);
  Status DownloadOnce(const ObjectRequest& request, bool no_cache);

  EventLog log_;
  std::function<bool(int)> missing_failover_;
  std::function<size_t()> space_reclaimer_;

  Fetcher* fetcher_;                        // borrowed
  Fetcher* external_ = nullptr;             // borrowed, may be null
  cache::PosixCache* cache_;                // borrowed
  std::unique_ptr<BundleFetcher> bundles_;  // null while bundles are off
  const Clock* clock_ = SteadyClock();
  uint64_t max_unsized_bytes_ = kMaxUnsizedBytes;
  RoundTripEstimate quiet_round_trip_, any_round_trip_;
  WholeInflateBudget whole_inflate_budget_{kWholeInflateBytes};
  std::atomic<int> downloading_{0};  // leaders downloading now
  // Downloads that started with more than kQuietDownloads others running.
  std::atomic<uint64_t> crowded_starts_{0};
  std::atomic<uint64_t> demand_misses_{0};
  std::atomic<int> demand_waiting_{0};

  // Guards in_flight_ and the InFlight fields; never held during a
  // download; leaf lock.
  cvmfs::Mutex mu_;
  std::condition_variable done_cv_;  // some InFlight became done
  std::map<std::string, std::shared_ptr<InFlight>> in_flight_
      GUARDED_BY(mu_);  // by digest string

  std::atomic<uint64_t> hits_{0}, downloads_{0}, collapsed_{0}, io_errors_{0},
      bytes_{0}, download_ns_{0};
};

}  // namespace cvmfs::client

#endif  // CLIENT_OBJECT_FETCHER_H_
