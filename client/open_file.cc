#include "client/open_file.h"

#include <unistd.h>

#include <algorithm>

#include "client/content_request.h"

namespace cvmfs::client {

namespace {

ObjectRequest ChunkRequest(const InodeInfo& info, const FileChunk& chunk) {
  return ChunkContentRequest(info.path, info.entry, chunk);
}

Result<size_t> PreadAll(int fd, char* buf, size_t size, uint64_t offset) {
  size_t done = 0;
  while (done < size) {
    ssize_t n =
        ::pread(fd, buf + done, size - done, static_cast<off_t>(offset + done));
    if (n < 0) {
      if (errno == EINTR) continue;
      return Status::FromErrno(errno, "read from cache");
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return done;
}

}  // namespace

OpenFile::OpenFile(const OpenFileServices* services,
                   std::shared_ptr<const InodeInfo> info,
                   cache::CacheHandle whole)
    : services_(services), info_(std::move(info)), whole_(std::move(whole)) {}

OpenFile::OpenFile(const OpenFileServices* services,
                   std::shared_ptr<const InodeInfo> info,
                   std::vector<FileChunk> chunks)
    : services_(services), info_(std::move(info)), chunks_(std::move(chunks)) {}

Result<size_t> OpenFile::Read(char* buf, size_t size, off_t offset) {
  if (offset < 0) return Status::InvalidArgument("negative offset");
  uint64_t off = static_cast<uint64_t>(offset);
  uint64_t file_size = info_->entry.size;
  if (off >= file_size || size == 0) return size_t{0};
  size = static_cast<size_t>(std::min<uint64_t>(size, file_size - off));
  if (whole_) return PreadAll(whole_->fd(), buf, size, off);
  return ReadChunked(buf, size, off);
}

size_t OpenFile::ChunkAt(uint64_t offset) const {
  auto it = std::upper_bound(
      chunks_.begin(), chunks_.end(), offset,
      [](uint64_t off, const FileChunk& c) { return off < c.offset; });
  return it == chunks_.begin() ? 0
                               : static_cast<size_t>(it - chunks_.begin() - 1);
}

Result<size_t> OpenFile::ReadChunked(char* buf, size_t size, uint64_t offset) {
  size_t done = 0;
  size_t index = ChunkAt(offset);
  while (done < size && index < chunks_.size()) {
    const FileChunk& chunk = chunks_[index];
    uint64_t pos = offset + done;
    if (pos < chunk.offset || pos >= chunk.offset + chunk.size)
      return Status::Corruption("chunk list of " + info_->path +
                                " has a gap at " + std::to_string(pos));
    CVMFS_ASSIGN_OR_RETURN(auto handle, Chunk(index));
    size_t want = static_cast<size_t>(
        std::min<uint64_t>(size - done, chunk.offset + chunk.size - pos));
    CVMFS_ASSIGN_OR_RETURN(size_t got, PreadAll(handle->fd(), buf + done, want,
                                                pos - chunk.offset));
    if (got != want)
      return Status::Corruption("cached chunk of " + info_->path +
                                " is shorter than the catalog says");
    done += got;
    if (done < size) ++index;
  }
  if (stream_.Note(offset, done) && index + 1 < chunks_.size())
    ReadAhead(index + 1);
  return done;
}

size_t OpenFile::ChunksAhead(size_t next, bool missed, bool slow_link) {
  if (!missed) return kMinChunksAhead;
  return std::clamp(next, kMinChunksAhead,
                    slow_link ? kMaxChunksAhead : kMissChunksAhead);
}

// Queues chunks [index, index + ChunksAhead(index, ...)) that no earlier
// call queued.
void OpenFile::ReadAhead(size_t index) {
  const size_t ahead =
      ChunksAhead(index, missed_, services_->prefetcher->speculating());
  const size_t want = std::min(chunks_.size(), index + ahead);
  size_t seen = ahead_requested_.load();
  while (seen < want) {
    if (ahead_requested_.compare_exchange_weak(seen, want)) {
      std::vector<ObjectRequest> requests;
      for (size_t i = std::max(seen, index); i < want; ++i)
        requests.push_back(ChunkRequest(*info_, chunks_[i]));
      services_->read_ahead(std::move(requests));
      return;
    }
  }
}

Result<std::shared_ptr<cache::CacheHandle>> OpenFile::Chunk(size_t index) {
  {
    cvmfs::MutexLock lock(&mu_);
    for (Slot& slot : slots_) {
      if (slot.index == index && slot.handle) {
        slot.last_use = ++use_clock_;
        return slot.handle;
      }
    }
  }
  const ObjectRequest request = ChunkRequest(*info_, chunks_[index]);
  if (!missed_ && !services_->cache->Contains(request.digest)) missed_ = true;
  services_->prefetcher->OnDemand(request.digest);
  auto opened = services_->objects->OpenReferenced(request);
  if (!opened.ok()) return opened.status().Annotate(info_->path);
  auto handle = std::make_shared<cache::CacheHandle>(std::move(opened).value());
  cvmfs::MutexLock lock(&mu_);
  if (slots_.size() < kOpenChunks) {
    slots_.push_back(Slot{index, handle, ++use_clock_});
  } else {
    auto oldest = std::min_element(
        slots_.begin(), slots_.end(),
        [](const Slot& a, const Slot& b) { return a.last_use < b.last_use; });
    *oldest = Slot{index, handle, ++use_clock_};
  }
  return handle;
}

}  // namespace cvmfs::client
