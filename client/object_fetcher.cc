#include "client/object_fetcher.h"

#include <algorithm>
#include <cctype>

#include "client/scoped_count.h"
#include "cvmfs/compression.h"
#include "cvmfs/object_inflater.h"

namespace cvmfs::client {

namespace {

// Streams a download into a cache transaction (or memory): hashes the bytes
// as received and inflates them when the object is compressed.
class VerifyingSink : public DownloadSink {
 public:
  using Output = std::function<Status(const char* data, size_t size)>;
  // `max_unsized`: the bound of an object without an expected size.
  // `gather`: memory to inflate it whole in once verified
  // (object_inflater.h); borrowed, outlives the sink.
  VerifyingSink(const ObjectRequest& request, uint64_t max_unsized,
                Output output, WholeInflateGrant* gather = nullptr)
      : request_(request),
        limit_(request.expected_size.value_or(max_unsized)),
        output_(std::move(output)),
        hasher_(request.digest.algorithm),
        inflater_(gather, request.size_hint()) {}

  Status Write(const void* data, size_t size) override {
    hasher_.Update(data, size);
    received_ += size;
    if (!request_.compressed)
      return Store(static_cast<const char*>(data), size);
    return inflater_.Feed(data, size, [this](const char* out, size_t n) {
      return Store(out, n);
    });
  }
  void Reset() override {
    hasher_ = Hasher(request_.digest.algorithm);
    inflater_.Reset();
    received_ = stored_ = 0;
    if (on_reset_) on_reset_();
  }
  void set_on_reset(std::function<void()> f) { on_reset_ = std::move(f); }

  // Ok if the bytes received hash to the requested digest and form a
  // complete stream of the expected size.
  Status Verify() {
    Digest got = hasher_.Finish();
    if (got != request_.digest)
      return Status::Corruption(
          "hash mismatch for " + request_.digest.ToString() + " (" +
          request_.description + "): received " + got.ToString());
    if (request_.compressed) {
      Status st = inflater_.Finish(
          [this](const char* out, size_t n) { return Store(out, n); });
      if (!st.ok())
        return st.Annotate("object " + request_.digest.ToString() + " (" +
                           request_.description + ")");
    }
    if (request_.expected_size && stored_ != *request_.expected_size)
      return Status::Corruption(
          "object " + request_.digest.ToString() + " (" + request_.description +
          ") has " + std::to_string(stored_) + " bytes, the catalog says " +
          std::to_string(*request_.expected_size));
    return Status::Ok();
  }
  uint64_t received() const { return received_; }

 private:
  // Passes on what fits into the bound; a piece beyond it stops the stream
  // before any of it is written (a zlib bomb, or a wrong size).
  Status Store(const char* data, size_t n) {
    if (n > limit_ - stored_) {
      const std::string what =
          request_.digest.ToString() + " (" + request_.description + ")";
      if (request_.expected_size)
        return Status::Corruption("object " + what +
                                  " inflates to more than the catalog's " +
                                  std::to_string(limit_) + " bytes");
      return Status::Corruption("object " + what +
                                " inflates to more than the limit of " +
                                std::to_string(limit_) + " bytes");
    }
    stored_ += n;
    return output_(data, n);
  }

  const ObjectRequest& request_;
  const uint64_t limit_;
  Output output_;
  Hasher hasher_;
  ObjectInflater inflater_;
  uint64_t received_ = 0, stored_ = 0;
  std::function<void()> on_reset_;
};

// A repository path as a URL path: bytes other than unreserved ones and '/'
// percent-encoded (names may hold spaces, '#', '?', UTF-8), as CVMFS
// escapes the URLs it requests.
std::string EscapeUrlPath(const std::string& path) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : path) {
    if (std::isalnum(c) || c == '/' || c == '-' || c == '.' || c == '_' ||
        c == '~') {
      out.push_back(static_cast<char>(c));
    } else {
      out += {'%', kHex[c >> 4], kHex[c & 15]};
    }
  }
  return out;
}

// Catalogs, certificates, histories and the other objects that are not file
// content are metadata: bounded by the fetcher's overall deadline.
DownloadRequest ToDownload(const ObjectRequest& request, bool no_cache) {
  if (request.external) {
    DownloadRequest download{EscapeUrlPath(request.external->path), no_cache};
    download.range_offset = request.external->offset;
    download.range_size = request.external->size;
    download.background = request.speculative;  // prefetch yields
    return download;
  }
  DownloadRequest download{ObjectPath(request.digest, request.suffix),
                           no_cache};
  download.background = request.speculative;  // prefetch yields to demand
  download.metadata = request.suffix != ObjectSuffix::kNone &&
                      request.suffix != ObjectSuffix::kPartial;
  return download;
}

}  // namespace

ObjectFetcher::ObjectFetcher(Fetcher* fetcher, cache::PosixCache* cache)
    : fetcher_(fetcher), cache_(cache) {}

FetchCounters ObjectFetcher::counters() const {
  FetchCounters c;
  c.hits = hits_.load();
  c.downloads = downloads_.load();
  c.collapsed = collapsed_.load();
  c.io_errors = io_errors_.load();
  c.bytes_downloaded = bytes_.load();
  c.download_ns = download_ns_.load();
  if (bundles_) c.bundles = bundles_->counters();
  return c;
}

void ObjectFetcher::EnableBundles() {
  bundles_ = std::make_unique<BundleFetcher>(fetcher_, cache_);
  bundles_->set_logger(log_);
}

Result<cache::CacheHandle> ObjectFetcher::Open(const ObjectRequest& request) {
  // A prefetch neither counts as a use of what it finds nor stores what it
  // downloads as used: unused prefetched data is evicted first.
  const cache::Access access =
      request.speculative ? cache::Access::kSpeculative : cache::Access::kUse;
  auto cached = cache_->Open(request.digest, access);
  if (cached.ok()) {
    ++hits_;
    return cached;
  }
  if (cached.status().code() != Status::Code::kNotFound) return cached.status();
  if (!request.speculative) ++demand_misses_;
  ScopedCount waiting(request.speculative ? nullptr : &demand_waiting_);

  const std::string key = request.digest.ToString();
  Status st;
  // At most two rounds: a waiter whose speculative leader failed leads the
  // second one itself (or waits for another demand download).
  for (int round = 0; round < 2; ++round) {
    std::shared_ptr<InFlight> flight;
    bool leader = false;
    {
      cvmfs::MutexLock lock(&mu_);
      auto it = in_flight_.find(key);
      if (it == in_flight_.end()) {
        flight = std::make_shared<InFlight>();
        flight->speculative = request.speculative;
        in_flight_[key] = flight;
        leader = true;
      } else {
        flight = it->second;
      }
    }
    if (leader) {
      const Clock::TimePoint started = clock_->Now();
      // Quiet: no more than kQuietDownloads others at any time during it
      // (no crowded start since it began; read before counting itself in).
      const uint64_t crowded = crowded_starts_.load();
      if (downloading_.fetch_add(1) > kQuietDownloads) ++crowded_starts_;
      bool bundled = false;
      st = Download(request, &bundled);
      --downloading_;
      download_ns_ += static_cast<uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(clock_->Now() -
                                                               started)
              .count());
      // A bundle's time is not one small object's round trip.
      if (st.ok() && !bundled && request.size_hint() > 0 &&
          request.size_hint() <= kLatencySampleSize) {
        const Clock::Duration took = clock_->Now() - started;
        any_round_trip_.Add(took);
        if (crowded_starts_.load() == crowded) quiet_round_trip_.Add(took);
      }
      cvmfs::MutexLock lock(&mu_);
      flight->done = true;
      flight->status = st;
      in_flight_.erase(key);
      done_cv_.notify_all();
      break;
    }
    ++collapsed_;
    cvmfs::MutexLock lock(&mu_);
    while (!flight->done) lock.Wait(&done_cv_);
    st = flight->status;
    if (st.ok() || !flight->speculative || request.speculative) break;
  }
  if (!st.ok()) {
    ++io_errors_;
    return st;
  }
  return cache_->Open(request.digest, access);
}

uint64_t ObjectFetcher::round_trip_us() const {
  const uint64_t quiet = quiet_round_trip_.us(), any = any_round_trip_.us();
  if (quiet == 0 || any == 0) return std::max(quiet, any);
  return std::min(quiet, any);
}

Result<cache::CacheHandle> ObjectFetcher::OpenReferenced(
    const ObjectRequest& request) {
  auto handle = Open(request);
  if (!handle.ok() && handle.status().code() == Status::Code::kNotFound)
    return Status::IoError(
        "object " + request.digest.ToString() + " (" + request.description +
        ") is missing on the server: " + handle.status().message());
  return handle;
}

Status ObjectFetcher::Download(const ObjectRequest& request, bool* bundled) {
  // Re-check: another download may have committed it since our miss.
  if (cache_->Contains(request.digest)) return Status::Ok();
  if (bundles_ && request.bundle && !request.external) {
    if (std::optional<BundleRef> ref = request.bundle()) {
      BundleWant want;
      want.digest = request.digest;
      want.compressed = request.compressed;
      want.size = request.expected_size;
      want.description = request.description;
      want.speculative = request.speculative;
      if (bundles_->Fill(want, *ref)) {
        *bundled = true;
        return Status::Ok();
      }
    }
  }
  // CVMFS's order: a hash mismatch is retried once with no-cache on the same
  // host (a proxy may hold a bad copy); a host that lacks the object or
  // still serves bad bytes then is a host failure: the next host is asked,
  // keeping no-cache, until the hook says every host was tried.
  bool no_cache = false, reclaimed = false;
  int host_switches = 0;
  Status st = DownloadOnce(request, no_cache);
  for (;;) {
    const Status::Code code = st.code();
    const std::string what =
        request.digest.ToString() + " (" + request.description + ")";
    if (code == Status::Code::kCorruption && !no_cache) {
      if (log_)
        log_(Severity::kWarning,
             "retrying " + what + " with no-cache: " + st.ToString());
      no_cache = true;
    } else if (code == Status::Code::kNotFound ||
               code == Status::Code::kCorruption) {
      if (log_ && code == Status::Code::kCorruption)
        log_(Severity::kWarning,
             what + " still corrupted with no-cache (a host failure): " +
                 st.ToString());
      // External servers fail over inside their own fetcher.
      if (request.external || !missing_failover_ ||
          !missing_failover_(host_switches++))
        break;
    } else if (code == Status::Code::kNoSpace && !reclaimed &&
               space_reclaimer_ && !request.speculative) {
      // Objects this client merely keeps open for speed may be what fills
      // the quota: let them go once and try again.
      reclaimed = true;
      size_t closed = space_reclaimer_();
      if (log_)
        log_(Severity::kWarning, "cache full storing " + what + "; closed " +
                                     std::to_string(closed) +
                                     " idle files and retrying");
    } else {
      break;
    }
    st = DownloadOnce(request, no_cache);
  }
  if (st.ok()) {
    ++downloads_;
  } else if (log_) {
    // A failed prefetch costs nothing yet: the read that needs it reports.
    log_(request.speculative ? Severity::kDebug : Severity::kError,
         "download of " + request.digest.ToString() + " (" +
             request.description + ") failed: " + st.ToString());
  }
  return st;
}

Status ObjectFetcher::DownloadOnce(const ObjectRequest& request,
                                   bool no_cache) {
  Fetcher* fetcher = request.external ? external_ : fetcher_;
  if (fetcher == nullptr)
    return Status::IoError(request.description +
                           " is an external file, and CVMFS_EXTERNAL_URL "
                           "is not set");
  std::unique_ptr<cache::CacheTransaction> txn;
  Status txn_status;
  auto start_txn = [&]() {
    txn.reset();
    auto t = cache_->StartTxn(request.digest, request.type, request.description,
                              request.speculative ? cache::Access::kSpeculative
                                                  : cache::Access::kUse);
    if (t.ok()) {
      txn = std::move(t).value();
    } else {
      txn_status = t.status();
    }
  };
  start_txn();
  if (!txn) return txn_status;
  // Inflated whole once verified (object_inflater.h) if its size is known
  // and the budget has room; else streamed.
  const bool gatherable = request.compressed && request.expected_size &&
                          *request.expected_size <= kMaxGatheredBytes;
  WholeInflateGrant grant(gatherable ? &whole_inflate_budget_ : nullptr,
                          request.size_hint());
  VerifyingSink sink(
      request, max_unsized_bytes_,
      [&](const char* data, size_t size) {
        if (!txn) return txn_status;
        return txn->Write(data, size);
      },
      &grant);
  sink.set_on_reset(start_txn);

  DownloadResult result = fetcher->Fetch(ToDownload(request, no_cache), &sink);
  bytes_ += sink.received();
  if (!result.status.ok()) return result.status;
  CVMFS_RETURN_IF_ERROR(sink.Verify());
  if (!txn) return txn_status;
  auto handle = txn->Commit();
  return handle.status();
}

Result<std::string> ObjectFetcher::FetchToMemory(const ObjectRequest& request) {
  Status st;
  for (bool no_cache : {false, true}) {
    std::string out;
    VerifyingSink sink(request, max_unsized_bytes_,
                       [&](const char* data, size_t size) {
                         out.append(data, size);
                         return Status::Ok();
                       });
    sink.set_on_reset([&] { out.clear(); });
    DownloadResult result =
        fetcher_->Fetch(ToDownload(request, no_cache), &sink);
    bytes_ += sink.received();
    if (!result.status.ok()) return result.status;
    st = sink.Verify();
    if (st.ok()) return out;
    if (st.code() != Status::Code::kCorruption) break;
  }
  ++io_errors_;
  return st;
}

}  // namespace cvmfs::client
