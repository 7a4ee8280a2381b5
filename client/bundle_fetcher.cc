#include "client/bundle_fetcher.h"

#include <algorithm>
#include <functional>
#include <utility>

#include "cvmfs/compression.h"
#include "cvmfs/object_name.h"

namespace cvmfs::client {

namespace {

// Stores the members of one bundle as they stream in: each is hashed and
// inflated into its own cache transaction, committed only if it verifies.
// A compressed member of at most kGatherBytes is gathered, checked against
// its hash, and then inflated in one call of libdeflate and written in one
// piece (members are small files: zlib's streaming inflate was a seventh of
// the client's CPU in a cold read of a tree of 78,000 files); a larger one
// is inflated by zlib as it arrives.
class MemberStore : public BundleReader::Visitor {
 public:
  // `on_stored` is called with each member committed.
  MemberStore(cache::PosixCache* cache, const BundleWant& want,
              const BundleRef& bundle,
              std::function<void(const Digest&)> on_stored)
      : cache_(cache),
        want_(want),
        bundle_(bundle),
        on_stored_(std::move(on_stored)) {}
  ~MemberStore() override { Drop(); }

  Status BeginMember(const BundleMember& member) override {
    Drop();
    member_ = member;
    const bool wanted = member.digest == want_.digest;
    if (cache_->Contains(member.digest)) {
      ++skipped;
      return Status::Ok();
    }
    const cache::Access access = wanted && !want_.speculative
                                     ? cache::Access::kUse
                                     : cache::Access::kSpeculative;
    auto txn = cache_->StartTxn(
        member.digest, cache::ObjectType::kRegular,
        wanted ? want_.description : bundle_.path + "/ (bundle member)",
        access);
    if (!txn.ok()) return Status::Ok();  // not stored; fetched singly if read
    txn_ = std::move(txn).value();
    hasher_ = Hasher(member.digest.algorithm);
    inflater_.Reset();
    compressed_ = wanted ? want_.compressed : true;
    expected_ = wanted ? want_.size : std::nullopt;
    limit_ = expected_.value_or(BundleFetcher::kMaxMemberInflated);
    stored_ = 0;
    bad_ = false;
    gather_ = compressed_ && member.size <= kGatherBytes;
    gathered_.clear();
    return Status::Ok();
  }

  Status MemberData(const void* data, size_t size) override {
    if (!txn_) return Status::Ok();
    hasher_.Update(data, size);
    if (bad_) return Status::Ok();
    if (gather_) {
      gathered_.append(static_cast<const char*>(data), size);
      return Status::Ok();
    }
    Status st = compressed_ ? inflater_.Feed(data, size,
                                             [this](const char* p, size_t n) {
                                               return Store(p, n);
                                             })
                            : Store(static_cast<const char*>(data), size);
    if (!st.ok()) bad_ = true;
    return Status::Ok();
  }

  Status EndMember() override {
    if (!txn_) return Status::Ok();
    bool ok = !bad_ && hasher_.Finish() == member_.digest;
    if (ok && gather_) {
      auto out = whole_.Inflate(gathered_, limit_, expected_.value_or(0));
      ok = out.ok() && Store(out->data(), out->size()).ok();
    } else if (ok && compressed_) {
      ok = inflater_.Finish().ok();
    }
    if (ok && expected_) ok = stored_ == *expected_;
    if (ok) ok = txn_->Commit().ok();
    if (ok) {
      ++stored;
      on_stored_(member_.digest);
    } else {
      ++failed;
    }
    txn_.reset();
    return Status::Ok();
  }

  // The body starts over (the fetcher retries): the member being stored is
  // dropped; those committed stay (and are skipped the next time).
  void Drop() { txn_.reset(); }

  uint64_t stored = 0, skipped = 0, failed = 0;

 private:
  static constexpr uint64_t kGatherBytes = 1 << 20;

  Status Store(const char* p, size_t n) {
    if (n > limit_ - stored_)
      return Status::Corruption("bundle member inflates beyond its bound");
    stored_ += n;
    return txn_->Write(p, n);
  }

  cache::PosixCache* cache_;
  const BundleWant& want_;
  const BundleRef& bundle_;
  std::function<void(const Digest&)> on_stored_;
  BundleMember member_;
  std::unique_ptr<cache::CacheTransaction> txn_;
  Hasher hasher_{HashAlgorithm::kSha1};
  Inflater inflater_;
  WholeInflater whole_;
  std::string gathered_;
  bool compressed_ = true, bad_ = false, gather_ = false;
  std::optional<uint64_t> expected_;
  uint64_t limit_ = 0, stored_ = 0;
};

// Feeds the download to a BundleReader; never more than the catalog's size.
class BundleSink : public DownloadSink {
 public:
  BundleSink(const BundleRef& bundle, MemberStore* store)
      : bundle_(bundle), store_(store) {
    Reset();
  }
  Status Write(const void* data, size_t size) override {
    received += size;
    if (received - reset_at_ > bundle_.size)
      return Status::Corruption("bundle " + bundle_.hash.ToString() +
                                " is larger than the catalog's " +
                                std::to_string(bundle_.size) + " bytes");
    return reader_->Feed(data, size);
  }
  void Reset() override {
    store_->Drop();
    reader_ = std::make_unique<BundleReader>(bundle_.hash.algorithm, store_);
    reset_at_ = received;
  }
  BundleReader* reader() { return reader_.get(); }
  uint64_t received = 0;  // over all attempts

 private:
  const BundleRef& bundle_;
  MemberStore* store_;
  std::unique_ptr<BundleReader> reader_;
  uint64_t reset_at_ = 0;
};

}  // namespace

BundleFetcher::BundleFetcher(Fetcher* fetcher, cache::PosixCache* cache)
    : fetcher_(fetcher), cache_(cache) {}

BundleCounters BundleFetcher::counters() const {
  BundleCounters c;
  c.fetched = fetched_.load();
  c.bytes = bytes_.load();
  c.members_stored = stored_.load();
  c.members_skipped = skipped_.load();
  c.members_failed = member_failed_.load();
  c.errors = errors_.load();
  c.fallbacks = fallbacks_.load();
  return c;
}

bool BundleFetcher::Fill(const BundleWant& want, const BundleRef& bundle) {
  const std::string key = bundle.hash.ToString();
  std::shared_ptr<InFlight> flight;
  bool leader = false, skip = false;
  {
    cvmfs::MutexLock lock(&mu_);
    auto known = known_.find(key);
    if (failed_.count(key) > 0 || missing_in_a_row_ >= kMissingInARow ||
        (known != known_.end() &&
         !std::binary_search(known->second.begin(), known->second.end(),
                             DigestHasher{}(want.digest)))) {
      skip = true;
    } else if (auto it = in_flight_.find(key); it != in_flight_.end()) {
      flight = it->second;
    } else {
      flight = std::make_shared<InFlight>();
      in_flight_[key] = flight;
      leader = true;
    }
  }
  if (leader) {
    // A download of this bundle that ended between the caller's cache
    // check and our taking the lead has stored the member already: members
    // are stored before their flight ends, so looking once more suffices.
    if (!cache_->Contains(want.digest))
      DownloadAndRecord(want, bundle, key, flight.get());
    cvmfs::MutexLock lock(&mu_);
    flight->done = true;
    in_flight_.erase(key);
    done_cv_.notify_all();
  } else if (!skip) {
    cvmfs::MutexLock lock(&mu_);
    const size_t mine = DigestHasher{}(want.digest);
    while (!flight->done && flight->stored.count(mine) == 0)
      lock.Wait(&done_cv_);
  }
  if (cache_->Contains(want.digest)) return true;
  ++fallbacks_;
  return false;
}

void BundleFetcher::DownloadAndRecord(const BundleWant& want,
                                      const BundleRef& bundle,
                                      const std::string& key,
                                      InFlight* flight) {
  Members members;
  const Status st = Download(want, bundle, flight, &members);
  if (!st.ok()) {
    ++errors_;
    if (log_)
      log_(st.code() == Status::Code::kNotFound ? Severity::kDebug
                                                : Severity::kWarning,
           "bundle " + key + " of " + bundle.path + " failed (" +
               "its files are fetched one by one): " + st.ToString());
  }
  cvmfs::MutexLock lock(&mu_);
  if (!members.empty()) {
    if (known_.size() >= kMaxKnown) known_.clear();
    known_[key] = std::move(members);
  }
  if (st.ok()) {
    missing_in_a_row_ = 0;
  } else {
    if (failed_.size() >= kMaxFailed) failed_.clear();
    failed_.insert(key);
    if (st.code() == Status::Code::kNotFound) ++missing_in_a_row_;
  }
}

Status BundleFetcher::Download(const BundleWant& want, const BundleRef& bundle,
                               InFlight* flight, Members* members) {
  MemberStore store(cache_, want, bundle, [this, flight](const Digest& d) {
    cvmfs::MutexLock lock(&mu_);
    flight->stored.insert(DigestHasher{}(d));
    done_cv_.notify_all();
  });
  BundleSink sink(bundle, &store);
  DownloadRequest request{ObjectPath(bundle.hash, ObjectSuffix::kBundle),
                          false};
  // A prefetch's bundle yields to demand reads (http_fetcher.h); a demand
  // open that joins it later waits for it as it is.
  request.background = want.speculative;
  const DownloadResult result = fetcher_->Fetch(request, &sink);
  if (result.status.ok() || sink.received > 0) ++fetched_;
  bytes_ += sink.received;
  stored_ += store.stored;
  skipped_ += store.skipped;
  member_failed_ += store.failed;
  if (store.failed > 0 && log_)
    log_(Severity::kWarning, std::to_string(store.failed) + " member(s) of " +
                                 "bundle " + bundle.hash.ToString() + " of " +
                                 bundle.path + " did not verify (dropped)");
  for (const BundleMember& m : sink.reader()->members())
    members->push_back(DigestHasher{}(m.digest));
  std::sort(members->begin(), members->end());
  CVMFS_RETURN_IF_ERROR(result.status);
  CVMFS_RETURN_IF_ERROR(sink.reader()->Finish());
  if (sink.reader()->digest() != bundle.hash)
    return Status::Corruption("bundle " + bundle.hash.ToString() +
                              " hashes to " +
                              sink.reader()->digest().ToString() +
                              " (its verified members are kept)");
  // Fetching it again would bring the same bad members.
  if (store.failed > 0)
    return Status::Corruption("bundle " + bundle.hash.ToString() + " has " +
                              std::to_string(store.failed) +
                              " member(s) that did not verify");
  return Status::Ok();
}

}  // namespace cvmfs::client
