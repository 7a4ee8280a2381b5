// ReadStream: whether the reads of one open file form a stream, so that
// reading its next chunks ahead pays.
//
// Reads that continue where the run of reads before them ended (within
// kSlack either way) extend that run; any other read starts a new one.
// The slack is there because one large read, or the kernel's readahead,
// reaches the file system in max_read pieces that several FUSE threads
// may serve slightly out of order. A run is a stream once it covers
// kStreamBytes, or from its first read if it began at the start of the
// file (cat, dd, cp, a program loading a file).
//
//   fio randread, 1 MiB records: each record is a run of 1 MiB      no
//   the same 1 MiB read again and again: the run does not grow      no
//   dd from offset 0                                                yes
//   a reader that seeks to the middle and reads on: after 2 MiB     yes
//
// A random reader read ahead wastes the disk (a warm cache) or the link
// (a cold one) on chunks nobody reads: fio's random 1 MiB reads of a
// cached 256 MiB file were 10-30% slower when every record that advanced
// the highest offset so far read the next two chunks ahead.
//
// Thread safety: Note() may be called concurrently.
#ifndef CLIENT_READ_STREAM_H_
#define CLIENT_READ_STREAM_H_

#include <cstdint>

#include "cvmfs/mutex.h"

namespace cvmfs::client {

class ReadStream {
 public:
  static constexpr uint64_t kSlack = 1 << 20;
  static constexpr uint64_t kStreamBytes = 2 << 20;

  // Notes a read of `size` bytes at `offset`; true if the reads so far,
  // this one included, form a stream.
  bool Note(uint64_t offset, uint64_t size) EXCLUDES(mu_);

 private:
  cvmfs::Mutex mu_;  // guards the run (start_, end_); leaf lock
  uint64_t start_ GUARDED_BY(mu_) = 0;  // where the current run began
  uint64_t end_ GUARDED_BY(mu_) = 0;  // the furthest byte it reached, plus one
};

}  // namespace cvmfs::client

#endif  // CLIENT_READ_STREAM_H_
