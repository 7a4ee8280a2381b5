#include "client/read_stream.h"

#include <algorithm>

namespace cvmfs::client {

bool ReadStream::Note(uint64_t offset, uint64_t size) {
  cvmfs::MutexLock lock(&mu_);
  const bool continues = offset + kSlack >= end_ && offset <= end_ + kSlack;
  if (continues) {
    start_ = std::min(start_, offset);
    end_ = std::max(end_, offset + size);
  } else {
    start_ = offset;
    end_ = offset + size;
  }
  return start_ == 0 || end_ - start_ >= kStreamBytes;
}

}  // namespace cvmfs::client
