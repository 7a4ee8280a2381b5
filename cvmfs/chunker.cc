#include "cvmfs/chunker.h"

#include <algorithm>

namespace cvmfs {

namespace {
constexpr uint64_t kWindow = 32;
constexpr uint32_t kCenter = 0x7FFFFFFFu;
}  // namespace

Status ChunkingParams::Validate() const {
  if (min_size < kWindow || !(min_size < avg_size) || !(avg_size < max_size))
    return Status::InvalidArgument("chunk sizes must satisfy 32 <= min < avg < max (got " +
                                   std::to_string(min_size) + ", " + std::to_string(avg_size) +
                                   ", " + std::to_string(max_size) + ")");
  return Status::Ok();
}

Xor32Chunker::Xor32Chunker(const ChunkingParams& params)
    : params_(params), threshold_(static_cast<uint32_t>(0xFFFFFFFFull / params.avg_size)) {}

void Xor32Chunker::Reset() {
  pos_ = 0;
  x_ = 0;
  at_cut_ = false;
}

size_t Xor32Chunker::FindCut(const uint8_t* data, size_t size) {
  at_cut_ = false;
  size_t i = 0;
  const uint64_t warmup = params_.min_size - kWindow;
  // Bytes before the window are not looked at.
  if (pos_ < warmup) {
    uint64_t skip = std::min<uint64_t>(warmup - pos_, size);
    i += skip;
    pos_ += skip;
  }
  // The window before min: fed, not tested.
  while (i < size && pos_ < params_.min_size) {
    x_ = (x_ << 1) ^ data[i];
    ++i;
    ++pos_;
  }
  // Fed and tested until max.
  uint32_t x = x_;
  const uint32_t t = threshold_;
  const uint64_t limit = std::min<uint64_t>(size - i, params_.max_size - std::min(pos_, params_.max_size));
  const uint8_t* p = data + i;
  for (uint64_t k = 0; k < limit; ++k) {
    x = (x << 1) ^ p[k];
    int32_t d = static_cast<int32_t>(x - kCenter);
    uint32_t dist = d < 0 ? 0u - static_cast<uint32_t>(d) : static_cast<uint32_t>(d);
    if (dist < t) {
      // Byte k starts the next chunk.
      x_ = x;
      pos_ += k;
      at_cut_ = true;
      return i + k;
    }
  }
  x_ = x;
  i += limit;
  pos_ += limit;
  if (pos_ >= params_.max_size && i <= size) {
    at_cut_ = true;
  }
  return i;
}

std::vector<uint64_t> ChunkOffsets(std::string_view file, const ChunkingParams& params) {
  std::vector<uint64_t> offsets{0};
  if (!ShouldChunk(file.size(), params)) return offsets;
  Xor32Chunker chunker(params);
  const auto* data = reinterpret_cast<const uint8_t*>(file.data());
  uint64_t off = 0;
  while (off < file.size()) {
    size_t n = chunker.FindCut(data + off, file.size() - off);
    off += n;
    if (!chunker.AtCut()) break;
    if (off < file.size()) offsets.push_back(off);
    chunker.Reset();
  }
  return offsets;
}

}  // namespace cvmfs
