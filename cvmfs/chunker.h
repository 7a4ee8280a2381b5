// Content-defined chunking of large files, exactly as CVMFS's "xor32"
// detector cuts them (doc/format-chunking.md), so that cut points, and with
// them chunk objects, are stable across publishes and across publishers.
//
// Rolling state x = (x << 1) ^ byte (uint32). For a chunk starting at L:
// bytes [L+min-32, L+min) are fed without testing; every byte at p in
// [L+min, L+max) is fed and then tested: a cut at p (byte p starts the next
// chunk) when the 32-bit circular distance of x to 0x7FFFFFFF is below
// T = 0xFFFFFFFF / avg. Without such a cut the chunk ends at L+max. The
// state resets at every cut. The final chunk is what remains.
//
// Thread safety: a chunker is used by one thread.
#ifndef CVMFS_CHUNKER_H_
#define CVMFS_CHUNKER_H_

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

struct ChunkingParams {
  uint64_t min_size = 4 * 1024 * 1024;
  uint64_t avg_size = 8 * 1024 * 1024;
  uint64_t max_size = 16 * 1024 * 1024;
  // 32 <= min < avg < max.
  Status Validate() const;
};

// Files larger than the minimum chunk size are chunked.
inline bool ShouldChunk(uint64_t file_size, const ChunkingParams& p) {
  return file_size > p.min_size;
}

class Xor32Chunker {
 public:
  explicit Xor32Chunker(const ChunkingParams& params);

  // Consumes bytes of the current chunk from `data`. Returns how many bytes
  // belong to the current chunk; AtCut() then tells whether the chunk ends
  // there (call Reset() before feeding the next chunk's bytes).
  size_t FindCut(const uint8_t* data, size_t size);
  bool AtCut() const { return at_cut_; }
  // Starts a new chunk.
  void Reset();

 private:
  ChunkingParams params_;
  uint32_t threshold_;
  uint64_t pos_ = 0;  // bytes of the current chunk consumed so far
  uint32_t x_ = 0;
  bool at_cut_ = false;
};

// Start offsets of the chunks of a whole file (the first is 0).
std::vector<uint64_t> ChunkOffsets(std::string_view file, const ChunkingParams& params);

}  // namespace cvmfs

#endif  // CVMFS_CHUNKER_H_
