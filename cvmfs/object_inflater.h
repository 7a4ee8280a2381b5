// ObjectInflater: decompression of one downloaded object, as fast as its
// size allows.
//
// An object whose inflated size is known (a file's or a chunk's size in the
// catalog) and small enough to hold in memory twice is gathered whole and
// inflated in one call of libdeflate when the download is complete
// (Finish): 2.4x the speed of zlib's streaming inflate on this project's
// benchmark machine (730 against 300 MB/s of output, one core), which is
// what bounds a cold sequential read of a large file on loopback. The
// stream must then inflate to exactly that size. Any other object is
// inflated by zlib as it arrives (Inflater, compression.h), and so is one
// whose compressed stream turns out larger than a compressor makes it
// (kGatherSlack): it is handed over to zlib on the way, with what was
// gathered so far.
//
// Whether an object is gathered is the caller's choice: it passes a grant
// of memory (about twice the inflated size) from a WholeInflateBudget
// (below), which bounds what all downloads hold at once.
//
// The caller hashes the compressed bytes itself and should call Finish only
// after the hash matched: a gathered object then never inflates corrupted
// bytes, and none of it reaches the sink before it was verified.
//
// Thread safety: one thread at a time.
#ifndef CVMFS_OBJECT_INFLATER_H_
#define CVMFS_OBJECT_INFLATER_H_

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/mutex.h"
#include "cvmfs/status.h"

namespace cvmfs {

class WholeInflateGrant;

class ObjectInflater {
 public:
  using Sink = Inflater::Sink;
  // How much larger than the inflated size the compressed stream of a
  // gathered object may grow before it is streamed instead: deflate stores
  // incompressible data with 5 bytes per 64 KiB block, zlib adds 6.
  static uint64_t GatherLimit(uint64_t size) { return size + size / 64 + 64; }

  // With a granted `grant` (borrowed, outlives the inflater): gather the
  // stream into its buffers and inflate it at Finish into exactly `size`
  // bytes (more is Corruption; fewer reach the sink, for the caller to
  // count). Otherwise stream (size ignored).
  ObjectInflater(WholeInflateGrant* grant, uint64_t size);
  ObjectInflater(const ObjectInflater&) = delete;
  ObjectInflater& operator=(const ObjectInflater&) = delete;
  ~ObjectInflater();

  // Compressed bytes in order. Streamed output goes to `sink`; a gathered
  // object calls it only once it turns out too large to gather.
  Status Feed(const void* data, size_t n, const Sink& sink);
  // The end of the stream: a gathered object is inflated into `sink` (in
  // pieces of at most kPiece bytes). Ok only for one complete zlib stream
  // with nothing after it.
  Status Finish(const Sink& sink);
  // Forgets everything fed: the stream starts over (gathered again).
  void Reset();

  bool gathering() const { return gathering_; }
  static constexpr size_t kPiece = 1 << 20;

 private:
  WholeInflateGrant* const grant_;  // null: stream
  const uint64_t size_;
  bool gathering_;
  size_t gathered_ = 0;  // bytes in the grant's input buffer
  Inflater streaming_;
};

// Memory that keeps its pages between uses: fresh memory costs a page
// fault per 4 KiB on its first write, 12% of the client's CPU in a cold
// read of a large file when every object took two new buffers. A buffer of
// kUniformBytes or more is asked for in transparent huge pages (2 MiB, one
// fault each) where the kernel has them for the asking
// (/sys/kernel/mm/transparent_hugepage/enabled: madvise or always).
struct InflateBuffer {
  struct Free {
    void operator()(char* p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;
  size_t capacity = 0;
  // At least `n` bytes (false: no memory); the content is lost when it
  // has to grow. Below kUniformBytes it takes that much at once (pages are
  // only touched as they are used), so that any pooled buffer fits any
  // chunk.
  bool Reserve(size_t n);
  // A chunk of CVMFS's largest default size (16 MiB) and its compressed
  // stream's slack (ObjectInflater::GatherLimit), in whole huge pages.
  static constexpr size_t kHugePage = 2 << 20;
  static constexpr size_t kUniformBytes = 9 * kHugePage;
};

// The memory that gathered objects may hold at once (ObjectInflater): a
// download takes 2x the object's size before it starts gathering, and
// gives it back when done; one that finds the budget spent streams. The
// budget keeps the buffers of finished objects of at least kPooledSize
// for the next ones, at most kIdleBuffers (the largest) of at most
// kIdleBufferBytes each (two chunks' worth: the read-ahead of a stream
// keeps two in flight). Smaller objects use the heap: its memory is reused
// anyway.
//
// Thread safety: all methods are thread-safe.
class WholeInflateBudget {
 public:
  static constexpr size_t kIdleBuffers = 6;
  static constexpr size_t kIdleBufferBytes = InflateBuffer::kUniformBytes;
  static constexpr uint64_t kPooledSize = 256 << 10;

  explicit WholeInflateBudget(uint64_t bytes) : left_(bytes) {}
  // True if `bytes` were taken.
  bool TryTake(uint64_t bytes);
  void Give(uint64_t bytes) { left_.fetch_add(bytes); }
  uint64_t left() const { return left_.load(); }

  // An idle buffer (the largest), or an empty one.
  InflateBuffer TakeBuffer() EXCLUDES(mu_);
  // Keeps `buffer` for a later TakeBuffer if there is room, else frees it.
  void ReturnBuffer(InflateBuffer buffer) EXCLUDES(mu_);
  size_t idle_buffers() const EXCLUDES(mu_);

 private:
  std::atomic<uint64_t> left_;
  mutable Mutex mu_;  // guards idle_; leaf lock
  std::vector<InflateBuffer> idle_ GUARDED_BY(mu_);
};

// What one gathered object holds of a budget: 2x its size (the stream and
// its output), taken if the budget has it, for as long as the grant lives,
// and two of the budget's buffers for them.
class WholeInflateGrant {
 public:
  // `budget` null: nothing is granted.
  WholeInflateGrant(WholeInflateBudget* budget, uint64_t size);
  ~WholeInflateGrant();
  WholeInflateGrant(const WholeInflateGrant&) = delete;
  WholeInflateGrant& operator=(const WholeInflateGrant&) = delete;
  bool granted() const { return budget_ != nullptr; }
  InflateBuffer* input() { return &input_; }
  InflateBuffer* output() { return &output_; }

 private:
  WholeInflateBudget* budget_;
  const uint64_t bytes_;
  InflateBuffer input_, output_;
};

}  // namespace cvmfs

#endif  // CVMFS_OBJECT_INFLATER_H_
