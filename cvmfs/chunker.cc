#include "cvmfs/chunker.h"

#include <algorithm>
#include <cstring>
#include <string>

namespace cvmfs {

namespace {

// Eight bytes as a little-endian integer (byte 0 in bits 0-7).
inline uint64_t LoadLe64(const uint8_t* p) {
  uint64_t v;
  std::memcpy(&v, p, sizeof(v));
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
  v = __builtin_bswap64(v);
#endif
  return v;
}

// What eight bytes b0..b7 (little-endian in `w`) add to the rolling state:
// b0 << 7 ^ b1 << 6 ^ ... ^ b7, so that feeding them one by one turns x into
// (x << 8) ^ Fold8(w). Pairs, then quads, then the two halves are combined.
inline uint32_t Fold8(uint64_t w) {
  constexpr uint64_t kLowBytes = 0x00FF00FF00FF00FFull;
  constexpr uint64_t kLowHalves = 0x0000FFFF0000FFFFull;
  w = ((w & kLowBytes) << 1) ^ ((w >> 8) & kLowBytes);
  w = ((w & kLowHalves) << 2) ^ ((w >> 16) & kLowHalves);
  return static_cast<uint32_t>(((w & 0xFFFFFFFFu) << 4) ^ (w >> 32));
}

// Whether some of the next 8 positions can hit, given the state x before them
// and hits inside [0x7FFF0000, 0x8000FFFF] or equal to 0xFFFFFFFF.
//
// After k <= 8 more bytes, x' = (x << k) ^ y with y < 2^15, so bits 16..31 of
// x' are bits 16-k..31-k of x. A hit needs bits 16..31 of x' to be 0x7FFF,
// 0x8000 or 0xFFFF, i.e. bits 16-k..30-k of x all equal; for every k in 1..8
// that range contains bits 15..22. If those 8 bits are all 0 and so is
// everything above them, every k gives 0x0000: no hit either (this keeps
// runs of zero bytes on the fast path).
inline bool MayHitWithin8(uint32_t x) {
  // (bits 15..22) + 1 has bits 1..7 clear <=> bits 15..22 are 0x00 or 0xFF.
  return ((x + 0x8000u) & 0x7F0000u) == 0 && (x >> 15) != 0;
}

}  // namespace

Status ChunkingParams::Validate() const {
  if (min_size >= kXor32Window && min_size < avg_size && avg_size < max_size)
    return Status::Ok();
  return Status::InvalidArgument(
      "chunk sizes must satisfy 32 <= min < avg < max (got min " +
      std::to_string(min_size) + ", avg " + std::to_string(avg_size) +
      ", max " + std::to_string(max_size) + ")");
}

bool ShouldChunk(uint64_t file_size, const ChunkingParams& params) {
  return file_size > params.min_size;
}

Xor32Chunker::Xor32Chunker(const ChunkingParams& params)
    : valid_(params.Validate().ok()) {
  if (!valid_) return;
  min_ = params.min_size;
  max_ = params.max_size;
  // CVMFS keeps T in an int32; avg > 32 makes it < 2^27, so it fits.
  const uint32_t t = static_cast<uint32_t>(0xFFFFFFFFull / params.avg_size);
  // abs(d) < T for d in (-T, T): x in [C - (T-1), C + (T-1)], 2T-1 values;
  // none when T == 0 (avg >= 2^32). abs(INT32_MIN) < T adds x = 0xFFFFFFFF.
  if (t > 0) {
    hit_low_ = kXor32Center - (t - 1);
    hit_width_ = 2 * t - 1;
  }
  // C ± (T-1) stays inside [0x7FFF0000, 0x8000FFFF] iff T <= 2^16.
  narrow_ = t <= 0x10000;
}

void Xor32Chunker::Reset() {
  StartChunk();
  at_cut_ = false;
}

size_t Xor32Chunker::Scan(const uint8_t* data, size_t n) {
  uint32_t x = x_;
  size_t i = 0;
  if (narrow_) {
    while (n - i >= 8) {
      if (!MayHitWithin8(x)) {
        x = (x << 8) ^ Fold8(LoadLe64(data + i));
        i += 8;
        continue;
      }
      for (const size_t end = i + 8; i < end; ++i) {
        x = (x << 1) ^ data[i];
        if (IsHit(x)) {
          x_ = x;
          return i;
        }
      }
    }
  }
  for (; i < n; ++i) {
    x = (x << 1) ^ data[i];
    if (IsHit(x)) {
      x_ = x;
      return i;
    }
  }
  x_ = x;
  return n;
}

size_t Xor32Chunker::FindCut(const uint8_t* data, size_t size) {
  at_cut_ = false;
  if (!valid_) return size;
  if (pos_ == max_) {
    // The hard cut of the previous call fell on the end of its input.
    if (size == 0) return 0;
    StartChunk();
    at_cut_ = true;
    return 0;
  }

  size_t i = 0;
  // Bytes that cannot reach any tested state are not looked at.
  const uint64_t warmup_begin = min_ - kXor32Window;
  if (pos_ < warmup_begin) {
    const size_t skip =
        static_cast<size_t>(std::min<uint64_t>(warmup_begin - pos_, size));
    i += skip;
    pos_ += skip;
  }
  // The 32 bytes before min are fed without testing.
  uint32_t x = x_;
  for (; i < size && pos_ < min_; ++i, ++pos_) x = (x << 1) ^ data[i];
  x_ = x;
  if (i == size) return size;

  // Fed and tested, up to the hard limit.
  const size_t n =
      static_cast<size_t>(std::min<uint64_t>(size - i, max_ - pos_));
  const size_t hit = Scan(data + i, n);
  if (hit < n) {
    StartChunk();
    at_cut_ = true;
    return i + hit;
  }
  i += n;
  pos_ += n;
  if (pos_ == max_ && i < size) {
    StartChunk();
    at_cut_ = true;
  }
  return i;
}

std::vector<uint64_t> ChunkOffsets(std::string_view whole_file,
                                   const ChunkingParams& params) {
  std::vector<uint64_t> offsets{0};
  if (!ShouldChunk(whole_file.size(), params)) return offsets;
  Xor32Chunker chunker(params);
  const auto* data = reinterpret_cast<const uint8_t*>(whole_file.data());
  const size_t size = whole_file.size();
  size_t offset = 0;
  while (offset < size) {
    offset += chunker.FindCut(data + offset, size - offset);
    if (!chunker.AtCut()) break;
    offsets.push_back(offset);
  }
  return offsets;
}

}  // namespace cvmfs
