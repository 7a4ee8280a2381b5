#include "publisher/compressibility.h"

#include <algorithm>

namespace publisher {

cvmfs::Compression CompressibilityProbe::Choose(std::string_view first_piece,
                                                cvmfs::Compression repository) {
  if (repository == cvmfs::Compression::kNone || first_piece.size() < kMinSize)
    return repository;
  const size_t n = first_piece.size();
  const size_t starts[] = {0, n / 2 - kSliceSize / 2, n - kSliceSize};
  size_t raw = 0, packed = 0;
  for (size_t start : starts) {
    const std::string_view slice = first_piece.substr(start, kSliceSize);
    compressor_.Compress(slice, &out_);
    raw += slice.size();
    packed += std::min(out_.size(), slice.size());
  }
  return raw - packed < raw / kMinSavingsDivisor ? cvmfs::Compression::kNone
                                                 : repository;
}

}  // namespace publisher
