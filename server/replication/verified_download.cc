#include "server/replication/verified_download.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

TxnFile::TxnFile(std::string path, cvmfs::UniqueFd fd,
                 cvmfs::HashAlgorithm algorithm, bool anonymous)
    : path_(std::move(path)),
      fd_(std::move(fd)),
      algorithm_(algorithm),
      hasher_(std::make_unique<cvmfs::Hasher>(algorithm)),
      anonymous_(anonymous) {}

TxnFile::~TxnFile() {
  // An anonymous file goes with its descriptor.
  if (!committed_ && !anonymous_) ::unlink(path_.c_str());
}

Result<std::unique_ptr<TxnFile>> TxnFile::CreateIn(
    const std::string& directory, const std::string& storage_root,
    cvmfs::HashAlgorithm algorithm) {
  cvmfs::UniqueFd fd(
      ::open(directory.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644));
  if (!fd.valid()) {
    // No O_TMPFILE on this file system (or kernel): a named temporary.
    if (errno == EOPNOTSUPP || errno == EISDIR || errno == EINVAL)
      return Create(storage_root, algorithm);
    return Status::FromErrno(errno, "create a temporary file in " + directory);
  }
  if (::fchmod(fd.get(), 0644) != 0)
    return Status::FromErrno(errno, "chmod a temporary file in " + directory);
  std::string path = "/proc/self/fd/" + std::to_string(fd.get());
  return std::unique_ptr<TxnFile>(
      new TxnFile(std::move(path), std::move(fd), algorithm, true));
}

Result<std::unique_ptr<TxnFile>> TxnFile::Create(
    const std::string& storage_root, cvmfs::HashAlgorithm algorithm) {
  return CreateNamed(storage_root + "/data/txn", algorithm);
}

Result<std::unique_ptr<TxnFile>> TxnFile::CreateNamed(
    const std::string& directory, cvmfs::HashAlgorithm algorithm) {
  std::string path = cvmfs::TempNameFor(directory + "/obj");
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
      new TxnFile(std::move(path), std::move(fd), algorithm, false));
}

Status TxnFile::Write(const void* data, size_t size) {
  if (!fd_.valid() || finished_)
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
  // An anonymous file lives only as long as its descriptor.
  if (!anonymous_) fd_.Reset();
  finished_ = true;
  return hasher_->Finish();
}

Status TxnFile::CommitAs(const std::string& final_path) {
  if (anonymous_) {
    if (!fd_.valid())
      return Status::IoError("commit " + final_path + ": the file was lost");
    // linkat(fd, "", AT_EMPTY_PATH) needs CAP_DAC_READ_SEARCH; linking the
    // /proc/self/fd name with AT_SYMLINK_FOLLOW does not.
    if (::linkat(AT_FDCWD, path_.c_str(), AT_FDCWD, final_path.c_str(),
                 AT_SYMLINK_FOLLOW) != 0 &&
        errno != EEXIST)
      return Status::FromErrno(errno, "link " + final_path);
    fd_.Reset();
    committed_ = true;
    return Status::Ok();
  }
  fd_.Reset();
  if (::rename(path_.c_str(), final_path.c_str()) != 0)
    return Status::FromErrno(errno, "rename " + path_ + " to " + final_path);
  committed_ = true;
  return Status::Ok();
}

Result<std::unique_ptr<StagedObject>> DownloadVerified(
    cvmfs::Fetcher* fetcher, SnapshotDestination* destination,
    const std::string& name, const cvmfs::Digest& expected) {
  cvmfs::Digest got;
  for (bool no_cache : {false, true}) {
    CVMFS_ASSIGN_OR_RETURN(auto file,
                           destination->Stage(name, expected.algorithm));
    cvmfs::DownloadResult result = fetcher->Fetch({name, no_cache}, file.get());
    if (!result.status.ok()) {
      if (result.status.IsNotFound())
        return Status::NotFound("the source has no " + name +
                                " (HTTP 404 from " + result.host + ")");
      return result.status.Annotate("downloading " + name);
    }
    got = file->Finish();
    if (got == expected) return file;
  }
  return Status::Corruption(
      "the source serves " + name + " with content hash " + got.ToString() +
      " instead of " + expected.ToString() + "; not stored");
}

}  // namespace replication
