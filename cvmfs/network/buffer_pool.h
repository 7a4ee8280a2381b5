// BufferPool: strings that keep their capacity between uses. A large HTTP
// body goes from the I/O thread to its caller in pieces of up to half a
// MiB (http_io_loop.h) through two strings that trade places; fresh ones
// for every transfer grew by doubling, each step a new mapping whose pages
// faulted on first write: nine in ten of the client's page faults in a cold
// read of a large file. Buffers come back here when the transfer ends.
//
// Thread safety: all methods are thread-safe.
#ifndef CVMFS_NETWORK_BUFFER_POOL_H_
#define CVMFS_NETWORK_BUFFER_POOL_H_

#include <cstddef>
#include <string>
#include <vector>

#include "cvmfs/mutex.h"

namespace cvmfs {

class BufferPool {
 public:
  // Buffers of `capacity` bytes; at most `max_idle` are kept.
  BufferPool(size_t capacity, size_t max_idle)
      : capacity_(capacity), max_idle_(max_idle) {}

  // An empty string with at least capacity() bytes reserved.
  std::string Take() EXCLUDES(mu_);
  // Keeps `buffer` for a later Take if it is one of ours (at least
  // capacity(), at most twice that) and there is room; else frees it.
  void Give(std::string buffer) EXCLUDES(mu_);

  size_t capacity() const { return capacity_; }
  size_t idle() const EXCLUDES(mu_);

 private:
  const size_t capacity_, max_idle_;
  mutable Mutex mu_;  // guards idle_; leaf lock
  std::vector<std::string> idle_ GUARDED_BY(mu_);
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_BUFFER_POOL_H_
