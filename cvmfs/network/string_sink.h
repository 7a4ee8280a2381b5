// StringSink: a DownloadSink that collects the body in memory, for small
// files (manifest, whitelist, certificates) and for tests.
//
// A body longer than max_size fails the transfer with Corruption, so that a
// broken or hostile server cannot make the client allocate without bound.
// Thread safety: none needed; a sink belongs to one Fetch call.
#ifndef CVMFS_NETWORK_STRING_SINK_H_
#define CVMFS_NETWORK_STRING_SINK_H_

#include <cstddef>
#include <limits>
#include <string>
#include <utility>

#include "cvmfs/network/fetcher.h"

namespace cvmfs {

class StringSink : public DownloadSink {
 public:
  explicit StringSink(size_t max_size = std::numeric_limits<size_t>::max())
      : max_size_(max_size) {}

  Status Write(const void* data, size_t size) override {
    if (size > max_size_ - body_.size()) {
      return Status::Corruption("download exceeds the limit of " +
                                std::to_string(max_size_) + " bytes");
    }
    body_.append(static_cast<const char*>(data), size);
    return Status::Ok();
  }
  void Reset() override {
    body_.clear();
    resets_++;
  }

  const std::string& body() const { return body_; }
  std::string TakeBody() { return std::move(body_); }
  int resets() const { return resets_; }  // how often a retry started over

 private:
  size_t max_size_;
  std::string body_;
  int resets_ = 0;
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_STRING_SINK_H_
