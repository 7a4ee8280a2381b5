// CompressibilityProbe: whether a large file is worth storing compressed.
//
// A file whose bytes do not shrink (media, archives, already compressed
// data) gains nothing from zlib but costs every client an inflate of every
// byte it reads, the largest part of a cold read's CPU. Such a file is
// stored uncompressed, and its catalog entry says so (the per-file
// compression flag that CVMFS clients honour, as for a graft file's
// `compression=none`).
//
// The decision is taken once per file from its first piece (the whole file,
// or its first chunk), so every chunk of a file shares it, and it depends on
// the bytes alone, so the same content is always stored the same way:
//
//   first piece < kMinSize ─────────────────────────► compressed
//   sample: up to three kSliceSize slices (start, middle, end), zlib level 1
//   sample shrinks by less than 1/kMinSavingsDivisor ──► uncompressed
//
// Not thread-safe: one probe per thread.
#ifndef PUBLISHER_COMPRESSIBILITY_H_
#define PUBLISHER_COMPRESSIBILITY_H_

#include <cstddef>
#include <string>
#include <string_view>

#include "cvmfs/compression.h"

namespace publisher {

class CompressibilityProbe {
 public:
  static constexpr size_t kMinSize = 1u << 20;
  static constexpr size_t kSliceSize = 64u << 10;
  static constexpr size_t kMinSavingsDivisor = 16;  // at least 6.25% saved

  // How a file whose first piece is `first_piece` is stored, given the
  // repository's compression.
  cvmfs::Compression Choose(std::string_view first_piece,
                            cvmfs::Compression repository);

 private:
  cvmfs::Compressor compressor_{1};
  std::string out_;
};

}  // namespace publisher

#endif  // PUBLISHER_COMPRESSIBILITY_H_
