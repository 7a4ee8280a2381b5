#include "server/replication/verified_download.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

TxnFile::TxnFile(std::string path, cvmfs::UniqueFd fd,
                 cvmfs::HashAlgorithm algorithm)
    : path_(std::move(path)),
      fd_(std::move(fd)),
      algorithm_(algorithm),
      hasher_(std::make_unique<cvmfs::Hasher>(algorithm)) {}

TxnFile::~TxnFile() {
  if (!committed_) ::unlink(path_.c_str());
}

Result<std::unique_ptr<TxnFile>> TxnFile::Create(
    const std::string& storage_root, cvmfs::HashAlgorithm algorithm) {
  std::string path = cvmfs::TempNameFor(storage_root + "/data/txn/obj");
  cvmfs::UniqueFd fd(
      ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd.valid()) return Status::FromErrno(errno, "create " + path);
  // World-readable whatever the umask: the web server (and `serve`, which
  // serves only o+r files) must read every object of the replica.
  if (::fchmod(fd.get(), 0644) != 0) {
    Status st = Status::FromErrno(errno, "chmod " + path);
    ::unlink(path.c_str());
    return st;
  }
  return std::unique_ptr<TxnFile>(
      new TxnFile(std::move(path), std::move(fd), algorithm));
}

Status TxnFile::Write(const void* data, size_t size) {
  if (!fd_.valid())
    return Status::IoError("write to " + path_ + " after it was finished");
  hasher_->Update(data, size);
  size_ += size;
  return cvmfs::WriteAll(fd_.get(), data, size, path_);
}

void TxnFile::Reset() {
  // A retry starts the body over: the file and the hash with it.
  if (fd_.valid() &&
      (::ftruncate(fd_.get(), 0) != 0 || ::lseek(fd_.get(), 0, SEEK_SET) != 0))
    fd_.Reset();  // the next Write reports the failure
  hasher_ = std::make_unique<cvmfs::Hasher>(algorithm_);
  size_ = 0;
}

cvmfs::Digest TxnFile::Finish() {
  fd_.Reset();
  return hasher_->Finish();
}

Status TxnFile::CommitAs(const std::string& final_path) {
  fd_.Reset();
  if (::rename(path_.c_str(), final_path.c_str()) != 0)
    return Status::FromErrno(errno, "rename " + path_ + " to " + final_path);
  committed_ = true;
  return Status::Ok();
}

Result<std::unique_ptr<TxnFile>> DownloadVerified(
    cvmfs::Fetcher* fetcher, const std::string& storage_root,
    const std::string& url_path, const cvmfs::Digest& expected) {
  cvmfs::Digest got;
  for (bool no_cache : {false, true}) {
    CVMFS_ASSIGN_OR_RETURN(auto file,
                           TxnFile::Create(storage_root, expected.algorithm));
    cvmfs::DownloadResult result =
        fetcher->Fetch({url_path, no_cache}, file.get());
    if (!result.status.ok()) {
      if (result.status.IsNotFound())
        return Status::NotFound("the source has no " + url_path +
                                " (HTTP 404 from " + result.host + ")");
      return result.status.Annotate("downloading " + url_path);
    }
    got = file->Finish();
    if (got == expected) return file;
  }
  return Status::Corruption(
      "the source serves " + url_path + " with content hash " + got.ToString() +
      " instead of " + expected.ToString() + "; not stored");
}

}  // namespace replication
