#include "cvmfs/object_inflater.h"

#include <libdeflate.h>
#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <memory>

namespace cvmfs {

namespace {

struct DecompressorDeleter {
  void operator()(libdeflate_decompressor* d) const {
    libdeflate_free_decompressor(d);
  }
};

}  // namespace

ObjectInflater::ObjectInflater(WholeInflateGrant* grant, uint64_t size)
    : grant_(grant && grant->granted() ? grant : nullptr),
      size_(size),
      gathering_(grant_ != nullptr) {}

ObjectInflater::~ObjectInflater() = default;

void ObjectInflater::Reset() {
  gathering_ = grant_ != nullptr;
  gathered_ = 0;
  streaming_.Reset();
}

Status ObjectInflater::Feed(const void* data, size_t n, const Sink& sink) {
  if (!gathering_) return streaming_.Feed(data, n, sink);
  InflateBuffer* in = grant_->input();
  if (gathered_ + n <= GatherLimit(size_) &&
      (gathered_ > 0 || in->Reserve(GatherLimit(size_)))) {
    std::memcpy(in->data.get() + gathered_, data, n);
    gathered_ += n;
    return Status::Ok();
  }
  // Larger than a compressor makes it (not worth holding), or no memory
  // for it: stream it.
  gathering_ = false;
  CVMFS_RETURN_IF_ERROR(streaming_.Feed(in->data.get(), gathered_, sink));
  gathered_ = 0;
  return streaming_.Feed(data, n, sink);
}

Status ObjectInflater::Finish(const Sink& sink) {
  if (!gathering_) return streaming_.Finish();
  std::unique_ptr<libdeflate_decompressor, DecompressorDeleter> d(
      libdeflate_alloc_decompressor());
  if (!d) return Status::NoSpace("cannot allocate a decompressor");
  // One byte more than the stream may produce: a stream that fills it
  // inflates beyond its size.
  InflateBuffer* out = grant_->output();
  if (!out->Reserve(size_ + 1))
    return Status::NoSpace("cannot allocate " + std::to_string(size_ + 1) +
                           " bytes to inflate into");
  const char* in = gathered_ > 0 ? grant_->input()->data.get() : "";
  auto inflated = InflateInto(d.get(), std::string_view(in, gathered_),
                              out->data.get(), size_ + 1);
  if (!inflated.ok() && inflated.status().code() == Status::Code::kNoSpace)
    return Status::Corruption("inflates to more than its " +
                              std::to_string(size_) + " bytes");
  if (!inflated.ok()) return inflated.status();
  const size_t out_size = *inflated;
  for (size_t done = 0; done < out_size;) {
    const size_t n = std::min(kPiece, out_size - done);
    CVMFS_RETURN_IF_ERROR(sink(out->data.get() + done, n));
    done += n;
  }
  return Status::Ok();
}

bool InflateBuffer::Reserve(size_t n) {
  if (capacity >= n) return true;
  data.reset();
  capacity = 0;
  const size_t take =
      (std::max(n, kUniformBytes) + kHugePage - 1) / kHugePage * kHugePage;
  char* p = static_cast<char*>(std::aligned_alloc(kHugePage, take));
  if (p == nullptr) return false;
  // Advice only: without huge pages it is 4 KiB pages as before.
  (void)::madvise(p, take, MADV_HUGEPAGE);
  data.reset(p);
  capacity = take;
  return true;
}

bool WholeInflateBudget::TryTake(uint64_t bytes) {
  uint64_t left = left_.load();
  while (left >= bytes) {
    if (left_.compare_exchange_weak(left, left - bytes)) return true;
  }
  return false;
}

InflateBuffer WholeInflateBudget::TakeBuffer() {
  MutexLock lock(&mu_);
  if (idle_.empty()) return InflateBuffer();
  auto largest =
      std::max_element(idle_.begin(), idle_.end(),
                       [](const InflateBuffer& a, const InflateBuffer& b) {
                         return a.capacity < b.capacity;
                       });
  InflateBuffer buffer = std::move(*largest);
  idle_.erase(largest);
  return buffer;
}

void WholeInflateBudget::ReturnBuffer(InflateBuffer buffer) {
  if (buffer.capacity == 0 || buffer.capacity > kIdleBufferBytes) return;
  MutexLock lock(&mu_);
  if (idle_.size() < kIdleBuffers) {
    idle_.push_back(std::move(buffer));
    return;
  }
  // Full: the larger buffers are the ones worth keeping.
  auto smallest =
      std::min_element(idle_.begin(), idle_.end(),
                       [](const InflateBuffer& a, const InflateBuffer& b) {
                         return a.capacity < b.capacity;
                       });
  if (smallest->capacity < buffer.capacity) *smallest = std::move(buffer);
}

size_t WholeInflateBudget::idle_buffers() const {
  MutexLock lock(&mu_);
  return idle_.size();
}

WholeInflateGrant::WholeInflateGrant(WholeInflateBudget* budget, uint64_t size)
    : budget_(budget), bytes_(2 * size + 64) {
  if (!budget_) return;
  if (!budget_->TryTake(bytes_)) {
    budget_ = nullptr;
    return;
  }
  if (size < WholeInflateBudget::kPooledSize) return;
  input_ = budget_->TakeBuffer();
  output_ = budget_->TakeBuffer();
}

WholeInflateGrant::~WholeInflateGrant() {
  if (!budget_) return;
  if (bytes_ >= 2 * WholeInflateBudget::kPooledSize) {
    budget_->ReturnBuffer(std::move(input_));
    budget_->ReturnBuffer(std::move(output_));
  }
  budget_->Give(bytes_);
}

}  // namespace cvmfs
