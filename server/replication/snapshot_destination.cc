#include "server/replication/snapshot_destination.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <string_view>
#include <utility>
#include <vector>

#include "cvmfs/file_util.h"
#include "server/replication/verified_download.h"

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

namespace {

// A StagedObject over a TxnFile; subclasses say what Commit does.
class StagedFile : public StagedObject {
 public:
  explicit StagedFile(std::unique_ptr<TxnFile> file) : file_(std::move(file)) {}
  Status Write(const void* data, size_t size) override {
    return file_->Write(data, size);
  }
  void Reset() override { file_->Reset(); }
  cvmfs::Digest Finish() override { return file_->Finish(); }
  const std::string& path() const override { return file_->path(); }
  uint64_t size() const override { return file_->size(); }

 protected:
  std::unique_ptr<TxnFile> file_;
};

// Linked (or renamed) to its final path in the storage directory.
class LocalStagedObject final : public StagedFile {
 public:
  LocalStagedObject(std::unique_ptr<TxnFile> file, std::string final_path)
      : StagedFile(std::move(file)), final_path_(std::move(final_path)) {}
  Status Commit() override { return file_->CommitAs(final_path_); }

 private:
  const std::string final_path_;
};

// A read-only mapping of a whole file; unmapped when destroyed.
class MappedFile {
 public:
  static Result<MappedFile> Open(const std::string& path) {
    cvmfs::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_CLOEXEC));
    if (!fd.valid()) return Status::FromErrno(errno, "open " + path);
    struct stat st;
    if (::fstat(fd.get(), &st) != 0)
      return Status::FromErrno(errno, "stat " + path);
    MappedFile m;
    m.size_ = static_cast<size_t>(st.st_size);
    if (m.size_ == 0) return m;
    void* p = ::mmap(nullptr, m.size_, PROT_READ, MAP_PRIVATE, fd.get(), 0);
    if (p == MAP_FAILED) return Status::FromErrno(errno, "mmap " + path);
    m.data_ = p;
    return m;
  }
  MappedFile(MappedFile&& o) noexcept
      : data_(std::exchange(o.data_, nullptr)), size_(o.size_) {}
  MappedFile& operator=(MappedFile&&) = delete;
  ~MappedFile() {
    if (data_) ::munmap(data_, size_);
  }
  std::string_view bytes() const {
    return data_ ? std::string_view(static_cast<const char*>(data_), size_)
                 : std::string_view();
  }

 private:
  MappedFile() = default;
  void* data_ = nullptr;
  size_t size_ = 0;
};

bool IsDataObject(const std::string& name) {
  return name.rfind("data/", 0) == 0;
}

}  // namespace

LocalDestination::LocalDestination(std::string storage_root)
    : root_(std::move(storage_root)), store_(root_) {}

Result<std::unique_ptr<StagedObject>> LocalDestination::Stage(
    const std::string& name, cvmfs::HashAlgorithm algorithm) {
  const std::string final_path = root_ + "/" + name;
  // Objects never change: written beside their name and linked. Other files
  // (the reflog) replace their previous version: a rename from data/txn.
  auto file =
      IsDataObject(name)
          ? TxnFile::CreateIn(final_path.substr(0, final_path.rfind('/')),
                              root_, algorithm)
          : TxnFile::Create(root_, algorithm);
  if (!file.ok()) return file.status();
  return std::unique_ptr<StagedObject>(
      std::make_unique<LocalStagedObject>(std::move(file).value(), final_path));
}

// Uploaded to the store under its name; the staged file goes with it.
class StoreDestination::Upload final : public StagedFile {
 public:
  Upload(std::unique_ptr<TxnFile> file, StoreDestination* destination,
         std::string name)
      : StagedFile(std::move(file)),
        destination_(destination),
        name_(std::move(name)) {}
  Status Commit() override {
    CVMFS_ASSIGN_OR_RETURN(MappedFile mapped, MappedFile::Open(file_->path()));
    CVMFS_RETURN_IF_ERROR(destination_->store_->Put(name_, mapped.bytes())
                              .Annotate("storing " + name_));
    destination_->Uploaded(name_);
    return Status::Ok();
  }

 private:
  StoreDestination* const destination_;
  const std::string name_;
};

StoreDestination::StoreDestination(cvmfs::ObjectStore* store,
                                   std::string staging_dir)
    : store_(store), staging_dir_(std::move(staging_dir)) {}

Status StoreDestination::ListExisting() {
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> names, store_->ListObjects());
  cvmfs::MutexLock lock(&mu_);
  known_.insert(names.begin(), names.end());
  listed_ = true;
  return Status::Ok();
}

bool StoreDestination::Has(const std::string& name) {
  if (IsDataObject(name)) {
    cvmfs::MutexLock lock(&mu_);
    if (listed_) return known_.count(name) > 0;
  }
  return store_->Exists(name);
}

void StoreDestination::Uploaded(const std::string& name) {
  cvmfs::MutexLock lock(&mu_);
  if (listed_) known_.insert(name);
}

Result<std::unique_ptr<StagedObject>> StoreDestination::Stage(
    const std::string& name, cvmfs::HashAlgorithm algorithm) {
  CVMFS_ASSIGN_OR_RETURN(auto file,
                         TxnFile::CreateNamed(staging_dir_, algorithm));
  return std::unique_ptr<StagedObject>(
      std::make_unique<Upload>(std::move(file), this, name));
}

}  // namespace replication
