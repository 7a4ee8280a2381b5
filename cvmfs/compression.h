// zlib compression of objects (doc/format.md, "Objects").
//
// Objects are stored as complete zlib streams (RFC 1950) or, for file content
// published with compression "none", verbatim. Compression uses libdeflate
// (same stream format as zlib, several times faster); decompression is
// streaming zlib so that arbitrarily large objects can be verified and
// inflated while they arrive.
//
// Thread safety: a Compressor or Inflater belongs to one thread at a time.
#ifndef CVMFS_COMPRESSION_H_
#define CVMFS_COMPRESSION_H_

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "cvmfs/status.h"

struct libdeflate_compressor;
struct libdeflate_decompressor;
struct z_stream_s;

namespace cvmfs {

// Values as stored in catalog flags bits 11-13.
enum class Compression : int { kZlib = 0, kNone = 1 };

Result<Compression> ParseCompressionName(std::string_view name);  // zlib|none
std::string_view CompressionName(Compression c);

// Whole-buffer compression into a zlib stream.
class Compressor {
 public:
  explicit Compressor(int level = 6);
  ~Compressor();
  Compressor(const Compressor&) = delete;
  Compressor& operator=(const Compressor&) = delete;
  // Replaces *out with the zlib stream of `in`.
  void Compress(std::string_view in, std::string* out);

 private:
  libdeflate_compressor* c_;
};

// Streaming zlib decompression. Output is handed to `sink` in pieces; a sink
// that returns a non-ok status stops decompression with that status.
class Inflater {
 public:
  using Sink = std::function<Status(const char* data, size_t size)>;
  Inflater();
  ~Inflater();
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;

  Status Feed(const void* data, size_t size, const Sink& sink);
  // Ok only if the stream ended exactly (no truncation, no trailing data).
  Status Finish() const;
  void Reset();

 private:
  std::unique_ptr<z_stream_s> z_;
  bool done_ = false;
  bool trailing_ = false;
};

// Streaming zlib compression with zlib itself (deflate, level 6, as CVMFS):
// the compressed stream is handed to `sink` in pieces. CVMFS re-hashes a
// cached object this way (user.lhash).
class Deflater {
 public:
  using Sink = Inflater::Sink;
  explicit Deflater(int level = 6);
  ~Deflater();
  Deflater(const Deflater&) = delete;
  Deflater& operator=(const Deflater&) = delete;

  Status Feed(const void* data, size_t size, const Sink& sink);
  Status Finish(const Sink& sink);

 private:
  Status Run(int flush, const Sink& sink);
  std::unique_ptr<z_stream_s> z_;
};

// Inflates `in`, which must be exactly one zlib stream, into the `room`
// bytes at `out` with `d`: the bytes written. NoSpace when it does not fit
// (a stream that fills all of `room` counts as not fitting, so give one
// byte more than allowed); Corruption for an invalid or truncated stream or
// data after its end.
Result<size_t> InflateInto(libdeflate_decompressor* d, std::string_view in,
                           char* out, size_t room);

// Inflates whole zlib streams held in memory with libdeflate (2.4x the
// speed of zlib's streaming inflate here; see object_inflater.h), reusing
// its decompressor and output buffer from stream to stream. For many small
// objects, e.g. the members of a bundle. One thread at a time.
class WholeInflater {
 public:
  WholeInflater();
  ~WholeInflater();
  WholeInflater(const WholeInflater&) = delete;
  WholeInflater& operator=(const WholeInflater&) = delete;

  // Inflates `in`, which must be exactly one zlib stream, to at most
  // `max_out` bytes (Corruption beyond; the guess `size_hint` sizes the
  // first try). The result stays valid until the next call.
  Result<std::string_view> Inflate(std::string_view in, uint64_t max_out,
                                   uint64_t size_hint = 0);

 private:
  libdeflate_decompressor* d_;
  std::string out_;
};

// Convenience: whole-buffer decompression.
Status Decompress(std::string_view in, std::string* out);
// Compresses with zlib itself (deflate, level 6: byte-identical to CVMFS).
std::string ZlibCompress(std::string_view in, int level = 6);

}  // namespace cvmfs

#endif  // CVMFS_COMPRESSION_H_
