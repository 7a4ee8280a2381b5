// Content-defined chunking of large files, cut for cut as CernVM-FS 2.12's
// "xor32" detector makes them (doc/format-chunking.md).
//
// Cut points are part of the repository format: the same bytes must give the
// same chunks, and so the same `P` objects, as CVMFS, or deduplication against
// existing repositories breaks. The rule, for a chunk that starts at L:
//
//   x = (x << 1) ^ byte                 uint32, x = 0 at L
//   [L, L+min-32)      skipped          (cannot influence any test)
//   [L+min-32, L+min)  fed, not tested
//   p in [L+min, L+max): feed byte p, then cut *before* p (byte p starts the
//                      next chunk) if Hit(x)
//   otherwise          cut at L+max     (unless that is the end of the file)
//
//   Hit(x) <=> abs(int32(x) - 0x7FFFFFFF) < T,  T = 0xFFFFFFFF / avg,
//   evaluated in wrapping 32-bit arithmetic as CVMFS (built with -fwrapv)
//   does, including abs(INT32_MIN) == INT32_MIN: so x = 0xFFFFFFFF hits too.
//
// Thread safety: ChunkingParams is a value; an Xor32Chunker belongs to one
// thread (one file) at a time.
#ifndef CVMFS_CHUNKER_H_
#define CVMFS_CHUNKER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

// x depends on the last kXor32Window bytes only.
inline constexpr uint64_t kXor32Window = 32;
// The centre of the cut window. Never change it: it defines the cut points.
inline constexpr uint32_t kXor32Center = 0x7FFFFFFF;

// CVMFS_{MIN,AVG,MAX}_CHUNK_SIZE.
struct ChunkingParams {
  uint64_t min_size = 4 * 1024 * 1024;
  uint64_t avg_size = 8 * 1024 * 1024;
  uint64_t max_size = 16 * 1024 * 1024;

  // Ok iff 32 <= min_size < avg_size < max_size.
  Status Validate() const;
};

// Whether a file of this size is offered to the chunker at all (CVMFS:
// size > min). A smaller file is one bulk object; so is a larger one that
// yields a single piece.
bool ShouldChunk(uint64_t file_size, const ChunkingParams& params);

// Streaming cut detector: feed a file's bytes in pieces of any size; the cuts
// do not depend on how the input is split.
//
//   Xor32Chunker c(params);            // or c.Reset() between files
//   while (have data) {
//     size_t n = c.FindCut(data, size);
//     append data[0, n) to the current chunk;
//     if (c.AtCut()) close the current chunk;   // iff n < size
//     data += n; size -= n;
//   }
//   at EOF: the current chunk (if not empty) is the last one.
class Xor32Chunker {
 public:
  // With parameters that fail Validate() the chunker never cuts.
  explicit Xor32Chunker(const ChunkingParams& params);

  // Forgets the current chunk; the next byte fed is a file's first byte.
  void Reset();

  // Consumes bytes of the current chunk from data[0, size) and returns how
  // many belong to it. A return value n < size means that a cut sits before
  // data[n]: the chunk is complete, AtCut() is true, and the chunker has
  // already started the next chunk (feed it data[n, size) next). n == size
  // means no cut yet. A hard cut that coincides with the end of `data` is
  // reported by the next call (which then returns 0), so that a cut at the end
  // of the file never produces an empty chunk.
  size_t FindCut(const uint8_t* data, size_t size);

  // Whether the last FindCut() ended at a cut.
  bool AtCut() const { return at_cut_; }
  // Bytes of the current chunk consumed so far.
  uint64_t chunk_size() const { return pos_; }

 private:
  // Feeds and tests data[0, n); returns the index of the first hit or n.
  size_t Scan(const uint8_t* data, size_t n);
  bool IsHit(uint32_t x) const {
    return x - hit_low_ < hit_width_ || x == 0xFFFFFFFFu;
  }
  void StartChunk() {
    pos_ = 0;
    x_ = 0;
  }

  bool valid_;
  uint64_t min_ = 0;
  uint64_t max_ = 0;
  // Hit(x) <=> x - hit_low_ < hit_width_ (mod 2^32) or x == 0xFFFFFFFF.
  uint32_t hit_low_ = 0;
  uint32_t hit_width_ = 0;
  // Whether hits other than 0xFFFFFFFF lie in [0x7FFF0000, 0x8000FFFF]
  // (T <= 2^16, i.e. avg >= 64 KiB), which lets Scan() rule out 8 positions
  // at a time.
  bool narrow_ = false;

  uint64_t pos_ = 0;  // bytes of the current chunk consumed so far
  uint32_t x_ = 0;    // rolling state after the last byte fed
  bool at_cut_ = false;
};

// Start offsets of the chunks of a whole file; the first is 0 (also for an
// empty file). A result of {0} means the file is stored as one bulk object.
std::vector<uint64_t> ChunkOffsets(std::string_view whole_file,
                                   const ChunkingParams& params);

}  // namespace cvmfs

#endif  // CVMFS_CHUNKER_H_
