#include "cache/cache_transaction.h"

#include <unistd.h>

#include <utility>

#include "cache/posix_cache.h"

namespace cache {

using cvmfs::Status;

CacheTransaction::CacheTransaction(PosixCache* owner, const cvmfs::Digest& id,
                                   ObjectType type, std::string description,
                                   std::string temp_path, cvmfs::UniqueFd fd,
                                   uint64_t max_size, Access access)
    : owner_(owner),
      id_(id),
      type_(type),
      description_(std::move(description)),
      temp_path_(std::move(temp_path)),
      fd_(std::move(fd)),
      max_size_(max_size),
      access_(access) {}

Status CacheTransaction::Write(const void* data, size_t size) {
  if (finished_)
    return Status::InvalidArgument("write to finished cache transaction for " +
                                   id_.ToString());
  if (!error_.ok()) return error_;
  if (size > max_size_ - size_) {
    error_ = Status::NoSpace(
        id_.ToString() + " is larger than the largest cacheable object (" +
        std::to_string(max_size_) + " bytes, half the quota limit)");
    return error_;
  }
  error_ = cvmfs::WriteAll(fd_.get(), data, size, temp_path_);
  if (error_.ok()) size_ += size;
  return error_;
}

cvmfs::Result<CacheHandle> CacheTransaction::Commit() {
  if (finished_)
    return Status::InvalidArgument("cache transaction for " + id_.ToString() +
                                   " is already finished");
  if (!error_.ok()) {
    Abort();
    return error_;
  }
  cvmfs::Result<CacheHandle> handle = owner_->CommitTxn(this);
  Abort();  // removes the temporary file unless it was renamed
  return handle;
}

void CacheTransaction::Abort() {
  fd_.Reset();
  if (!temp_path_.empty()) ::unlink(temp_path_.c_str());
  temp_path_.clear();
  finished_ = true;
}

}  // namespace cache
