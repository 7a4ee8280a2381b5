// TarStream: the tar archive `cvmfs_server ingest` reads, member by member,
// with libarchive: tar formats only (ustar, pax, GNU, v7), under any
// compression libarchive detects, from a file or standard input.
//
// Only a whole tar archive is read to its end without an error: zero bytes
// (what a broken `curl ... |` pipeline gives), another format (libarchive's
// mtree reader would read files of this machine named in the input), garbage,
// and a stream cut inside a member or before the end-of-archive blocks are
// refused. An archive of only the end-of-archive blocks (`tar cf x.tar -T
// /dev/null`) is a valid empty archive.
//
// Thread safety: none; one thread reads a stream.
#ifndef PUBLISHER_TAR_STREAM_H_
#define PUBLISHER_TAR_STREAM_H_

#include <archive.h>
#include <archive_entry.h>

#include <memory>
#include <string>

#include "cvmfs/status.h"
#include "publisher/ingest_pipeline.h"

namespace publisher {

class TarStream {
 public:
  // `tarball` is a path, or "-" for standard input. Fails unless the input
  // starts like a tar archive.
  static cvmfs::Result<std::unique_ptr<TarStream>> Open(
      const std::string& tarball);
  ~TarStream();
  TarStream(const TarStream&) = delete;
  TarStream& operator=(const TarStream&) = delete;

  // The next member (valid until the next call), or nullptr after the last
  // one of a complete archive.
  cvmfs::Result<archive_entry*> Next();
  // The content of the member Next() returned, read from the stream: the
  // holes of a sparse member read as zeros, up to the member's size.
  // Valid until the next call of Next().
  std::unique_ptr<ByteSource> Content(archive_entry* member);
  // "tarball <path>" or "standard input", for messages.
  const std::string& name() const { return name_; }

 private:
  struct Input;
  struct ArchiveFree {
    void operator()(archive* a) const { archive_read_free(a); }
  };
  TarStream();
  cvmfs::Status Incomplete(const char* why) const;

  std::string name_;
  std::unique_ptr<Input> input_;  // read by archive_, which it outlives
  std::unique_ptr<archive, ArchiveFree> archive_;
  bool in_member_ = false;
  // Where the last member's data (and padding) ended: the end-of-archive
  // blocks come after it.
  la_int64_t member_end_ = 0;
};

}  // namespace publisher

#endif  // PUBLISHER_TAR_STREAM_H_
