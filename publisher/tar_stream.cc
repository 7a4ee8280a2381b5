#include "publisher/tar_stream.h"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <vector>

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

// The input's bytes as libarchive asks for them: counted, so that an empty
// input can be told from one in another format.
struct TarStream::Input {
  int fd = -1;
  bool owned = false;  // closed with the Input (not standard input)
  bool failed = false;
  int64_t bytes_read = 0;
  std::vector<char> buffer = std::vector<char>(1 << 20);

  ~Input() {
    if (owned) ::close(fd);
  }
  static la_ssize_t Read(archive* a, void* self, const void** out) {
    auto* in = static_cast<Input*>(self);
    ssize_t n;
    do {
      n = ::read(in->fd, in->buffer.data(), in->buffer.size());
    } while (n < 0 && errno == EINTR);
    if (n < 0) {
      in->failed = true;
      archive_set_error(a, errno, "read: %s", std::strerror(errno));
      return -1;
    }
    in->bytes_read += n;
    *out = in->buffer.data();
    return n;
  }
};

namespace {

// libarchive's message for the last error, which may be NULL (some
// failures set none): never hand that to a std::string.
std::string ArchiveError(archive* a) {
  const char* why = archive_error_string(a);
  return why ? why : "unreadable archive";
}

// The bytes of the current member. Sparse members come as data blocks at
// offsets (archive_read_data_block); the holes between and after them read
// as zeros, up to the member's size.
class MemberSource : public ByteSource {
 public:
  MemberSource(archive* a, archive_entry* e) : a_(a) {
    if (archive_entry_sparse_count(e) > 0 && archive_entry_size_is_set(e))
      sparse_size_ = archive_entry_size(e);
  }
  Result<size_t> Read(void* buf, size_t size) override;

 private:
  archive* a_;
  int64_t sparse_size_ = -1;  // the size holes extend to (sparse members)
  const char* block_ = nullptr;
  size_t block_left_ = 0;
  int64_t block_offset_ = 0;  // where block_ goes in the file
  int64_t out_ = 0;           // bytes returned so far
  bool eof_ = false;
};

Result<size_t> MemberSource::Read(void* buf, size_t size) {
  while (block_left_ == 0 && !eof_) {
    const void* p = nullptr;
    size_t n = 0;
    la_int64_t offset = 0;
    int rc = archive_read_data_block(a_, &p, &n, &offset);
    if (rc == ARCHIVE_EOF) {
      eof_ = true;
      break;
    }
    if (rc < ARCHIVE_WARN)
      return Status::Corruption("tar: " + ArchiveError(a_));
    if (offset < out_)
      return Status::Corruption("tar: sparse blocks out of order");
    block_ = static_cast<const char*>(p);
    block_left_ = n;
    block_offset_ = offset;
  }
  const int64_t hole_end = eof_ ? std::max(out_, sparse_size_) : block_offset_;
  if (out_ < hole_end) {
    size_t n = static_cast<size_t>(
        std::min<int64_t>(hole_end - out_, static_cast<int64_t>(size)));
    std::memset(buf, 0, n);
    out_ += static_cast<int64_t>(n);
    return n;
  }
  size_t n = std::min(size, block_left_);
  if (n > 0) std::memcpy(buf, block_, n);
  block_ += n;
  block_left_ -= n;
  block_offset_ += static_cast<int64_t>(n);
  out_ += static_cast<int64_t>(n);
  return n;
}

}  // namespace

TarStream::TarStream() : input_(new Input), archive_(archive_read_new()) {}

TarStream::~TarStream() = default;

Result<std::unique_ptr<TarStream>> TarStream::Open(const std::string& tarball) {
  std::unique_ptr<TarStream> s(new TarStream);
  if (tarball == "-") {
    s->name_ = "standard input";
    s->input_->fd = 0;
  } else {
    s->name_ = "tarball " + tarball;
    s->input_->fd = ::open(tarball.c_str(), O_RDONLY | O_CLOEXEC);
    if (s->input_->fd < 0)
      return Status::InvalidArgument("cannot open tarball " + tarball + ": " +
                                     std::strerror(errno));
    s->input_->owned = true;
  }
  archive* a = s->archive_.get();
  // Compressions libarchive decodes itself (Debian's libarchive links
  // zlib, bzip2, liblzma, zstd and lz4): not the "all" set, in which some
  // filters (lrzip, lzop, grzip, ...) run an external program on the input.
  archive_read_support_filter_gzip(a);
  archive_read_support_filter_bzip2(a);
  archive_read_support_filter_xz(a);
  archive_read_support_filter_lzma(a);
  archive_read_support_filter_zstd(a);
  archive_read_support_filter_lz4(a);
  archive_read_support_filter_compress(a);
  // Tar formats only: not libarchive's "empty" format (zero bytes as an
  // empty archive), nor mtree, zip, cpio, ...
  archive_read_support_format_tar(a);
  if (archive_read_open(a, s->input_.get(), nullptr, &Input::Read, nullptr) ==
      ARCHIVE_OK)
    return s;
  if (s->input_->bytes_read == 0 && !s->input_->failed)
    return Status::InvalidArgument(s->name_ + " is empty, not a tar archive");
  return Status::InvalidArgument(s->name_ + " is not a tar archive (" +
                                 ArchiveError(a) + ")");
}

Status TarStream::Incomplete(const char* why) const {
  return Status::InvalidArgument(
      name_ + " is not a complete tar archive: " + (why ? why : "unreadable"));
}

Result<archive_entry*> TarStream::Next() {
  archive* a = archive_.get();
  if (in_member_) {
    in_member_ = false;
    if (archive_read_data_skip(a) < ARCHIVE_WARN)
      return Incomplete(ArchiveError(a).c_str());
    member_end_ = archive_filter_bytes(a, 0);
  }
  for (;;) {
    archive_entry* e = nullptr;
    int rc = archive_read_next_header(a, &e);
    if (rc == ARCHIVE_RETRY) continue;
    if (rc == ARCHIVE_EOF) break;
    if (rc < ARCHIVE_WARN) return Incomplete(ArchiveError(a).c_str());
    in_member_ = true;
    return e;
  }
  // libarchive takes a stream that stops right after a member (cut at a
  // block boundary) for a complete one: nothing was read past member_end_.
  if (archive_filter_bytes(a, 0) <= member_end_)
    return Incomplete("it ends without the end-of-archive blocks (cut off?)");
  return nullptr;
}

std::unique_ptr<ByteSource> TarStream::Content(archive_entry* member) {
  return std::make_unique<MemberSource>(archive_.get(), member);
}

}  // namespace publisher
