#include "cvmfs/object_store.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"

namespace cvmfs {

namespace {
// The piece size of streamed reads and copies.
constexpr size_t kStreamBlock = 256 << 10;
}  // namespace

Result<uint64_t> ObjectStore::Size(const std::string& name) {
  CVMFS_ASSIGN_OR_RETURN(std::string bytes, Get(name));
  return uint64_t{bytes.size()};
}

Result<bool> ObjectStore::PutIfAbsent(const std::string& name,
                                      std::string_view bytes) {
  if (Exists(name)) return false;
  CVMFS_RETURN_IF_ERROR(Put(name, bytes));
  return true;
}

Status ObjectStore::ReadTo(const std::string& name, const Sink& sink) {
  CVMFS_ASSIGN_OR_RETURN(std::string bytes, Get(name));
  return sink(bytes.data(), bytes.size());
}

Status ObjectStore::PutFile(const std::string& name, const std::string& file) {
  CVMFS_ASSIGN_OR_RETURN(std::string bytes, ReadFile(file));
  return Put(name, bytes);
}

Result<std::optional<std::string>> ObjectStore::GetAtMost(
    const std::string& name, uint64_t max_bytes) {
  CVMFS_ASSIGN_OR_RETURN(uint64_t size, Size(name));
  if (size > max_bytes) return std::optional<std::string>();
  CVMFS_ASSIGN_OR_RETURN(std::string bytes, Get(name));
  return std::optional<std::string>(std::move(bytes));
}

namespace {

// Whether the umask keeps every bit of 0644 (read from /proc/self/status:
// umask(2) cannot be read without being set).
bool UmaskKeeps0644() {
  auto status = ReadFile("/proc/self/status");
  if (!status.ok()) return false;
  const size_t at = status->find("\nUmask:");
  if (at == std::string::npos) return false;
  const unsigned long mask =
      std::strtoul(status->c_str() + at + sizeof("\nUmask:") - 1, nullptr, 8);
  return (mask & 0644) == 0;
}

}  // namespace

int LocalObjectStore::OpenForReading(const std::string& name) const {
  // Without an access time update: on a relatime mount the first read of a
  // new file writes its inode (through the journal), which made reading
  // back the objects of a large publish for its bundles wait on the
  // journal. O_NOATIME is the owner's (and root's); others read without it.
  const std::string path = At(name);
  int fd = ::openat(DirFd(), path.c_str(), O_RDONLY | O_CLOEXEC | O_NOATIME);
  if (fd < 0 && errno == EPERM)
    fd = ::openat(DirFd(), path.c_str(), O_RDONLY | O_CLOEXEC);
  return fd;
}

LocalObjectStore::LocalObjectStore(std::string root)
    : root_(std::move(root)),
      root_fd_(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC)),
      umask_keeps_mode_(UmaskKeeps0644()) {}

Status LocalObjectStore::CreateLayout() {
  CVMFS_RETURN_IF_ERROR(MakeDirs(root_ + "/data/txn"));
  for (int i = 0; i < 256; ++i) {
    uint8_t b = static_cast<uint8_t>(i);
    CVMFS_RETURN_IF_ERROR(MakeDirs(root_ + "/data/" + ToHex(&b, 1)));
  }
  if (!root_fd_.valid())
    root_fd_ =
        UniqueFd(::open(root_.c_str(), O_PATH | O_DIRECTORY | O_CLOEXEC));
  return Status::Ok();
}

bool LocalObjectStore::Exists(const std::string& name) {
  return ::faccessat(DirFd(), At(name).c_str(), F_OK, 0) == 0;
}

namespace {

// How PutUnnamed ended.
enum class Unnamed {
  kDone,         // linked in, or failed writing (the status says)
  kExists,       // the name exists; nothing done
  kUnsupported,  // no O_TMPFILE here (or the link failed): nothing done
};

// Writes `bytes` as an unnamed file in the object's own directory
// (O_TMPFILE) and links it in under its name: no temporary name, and no
// rename across directories, which the kernel serializes filesystem-wide
// (two workers storing small objects spent most of their time waiting for
// it). A crash leaves nothing behind. The link fails, and nothing is
// written, if the name exists. `path` is resolved from `dirfd`; `shown` is
// the path for messages; `chmod`: the umask may have taken bits of 0644.
Unnamed PutUnnamed(int dirfd, const std::string& path, const std::string& shown,
                   std::string_view bytes, bool chmod, Status* result) {
#ifdef O_TMPFILE
  const std::string dir = path.substr(0, path.rfind('/'));
  UniqueFd fd(
      ::openat(dirfd, dir.c_str(), O_TMPFILE | O_WRONLY | O_CLOEXEC, 0644));
  if (!fd.valid()) return Unnamed::kUnsupported;
  Status st = WriteAll(fd.get(), bytes.data(), bytes.size(), shown);
  if (st.ok() && chmod && ::fchmod(fd.get(), 0644) != 0)
    st = Status::FromErrno(errno, "chmod " + shown);
  if (!st.ok()) {
    *result = st;
    return Unnamed::kDone;
  }
  // Linked by its descriptor where the caller may (CAP_DAC_READ_SEARCH, as
  // root), which spares the kernel the lookup of /proc/self/fd/N;
  // otherwise through that path.
  int linked = ::linkat(fd.get(), "", dirfd, path.c_str(), AT_EMPTY_PATH);
  if (linked != 0 && (errno == ENOENT || errno == EPERM)) {
    const std::string proc = "/proc/self/fd/" + std::to_string(fd.get());
    linked = ::linkat(AT_FDCWD, proc.c_str(), dirfd, path.c_str(),
                      AT_SYMLINK_FOLLOW);
  }
  if (linked != 0)
    return errno == EEXIST ? Unnamed::kExists : Unnamed::kUnsupported;
  *result = Status::Ok();
  return Unnamed::kDone;
#else
  (void)dirfd;
  (void)path;
  (void)shown;
  (void)bytes;
  (void)chmod;
  (void)result;
  return Unnamed::kUnsupported;
#endif
}

}  // namespace

Status LocalObjectStore::Put(const std::string& name, std::string_view bytes) {
  const std::string final_path = root_ + "/" + name;
  Status unnamed;
  if (PutUnnamed(DirFd(), At(name), final_path, bytes, !umask_keeps_mode_,
                 &unnamed) == Unnamed::kDone)
    return unnamed;
  return PutThroughTxn(final_path, bytes);  // replaces an existing file
}

Result<bool> LocalObjectStore::PutIfAbsent(const std::string& name,
                                           std::string_view bytes) {
  const std::string final_path = root_ + "/" + name;
  Status unnamed;
  switch (PutUnnamed(DirFd(), At(name), final_path, bytes, !umask_keeps_mode_,
                     &unnamed)) {
    case Unnamed::kDone:
      if (!unnamed.ok()) return unnamed;
      return true;
    case Unnamed::kExists:
      return false;
    case Unnamed::kUnsupported:
      break;
  }
  if (Exists(name)) return false;
  CVMFS_RETURN_IF_ERROR(PutThroughTxn(final_path, bytes));
  return true;
}

Status LocalObjectStore::PutThroughTxn(const std::string& final_path,
                                       std::string_view bytes) {
  // Temporary files live in data/txn so that a crash leaves nothing that
  // looks like an object; the final rename is the commit.
  std::string tmp = TempNameFor(root_ + "/data/txn/obj");
  UniqueFd fd(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!fd.valid()) return Status::FromErrno(errno, "create " + tmp);
  Status st = WriteAll(fd.get(), bytes.data(), bytes.size(), tmp);
  if (st.ok() && ::fchmod(fd.get(), 0644) != 0)
    st = Status::FromErrno(errno, "chmod " + tmp);
  fd.Reset();
  if (st.ok() && ::rename(tmp.c_str(), final_path.c_str()) != 0)
    st = Status::FromErrno(errno, "rename " + tmp + " to " + final_path);
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

Result<std::string> LocalObjectStore::Get(const std::string& name) {
  UniqueFd fd(OpenForReading(name));
  if (!fd.valid())
    return Status::FromErrno(errno, "open " + root_ + "/" + name);
  return ReadAll(fd.get(), root_ + "/" + name);
}

Result<std::optional<std::string>> LocalObjectStore::GetAtMost(
    const std::string& name, uint64_t max_bytes) {
  const std::string shown = root_ + "/" + name;
  UniqueFd fd(OpenForReading(name));
  if (!fd.valid()) {
    if (errno == ENOENT) return Status::NotFound(name);
    return Status::FromErrno(errno, "open " + shown);
  }
  struct stat st;
  if (::fstat(fd.get(), &st) != 0)
    return Status::FromErrno(errno, "stat " + shown);
  const uint64_t size = static_cast<uint64_t>(st.st_size);
  if (size > max_bytes) return std::optional<std::string>();
  std::string bytes(size, '\0');
  CVMFS_ASSIGN_OR_RETURN(size_t n,
                         ReadFull(fd.get(), bytes.data(), size, shown));
  if (n != size)
    return Status::Corruption(shown + " is shorter than its size (" +
                              std::to_string(n) + " of " +
                              std::to_string(size) + " bytes)");
  return std::optional<std::string>(std::move(bytes));
}

Status LocalObjectStore::ReadTo(const std::string& name, const Sink& sink) {
  const std::string path = root_ + "/" + name;
  UniqueFd fd(OpenForReading(name));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + path);
  return ForEachBlock(fd.get(), kStreamBlock, path, sink);
}

Status LocalObjectStore::PutFile(const std::string& name,
                                 const std::string& file) {
  const std::string final_path = root_ + "/" + name;
  if (::chmod(file.c_str(), 0644) != 0)
    return Status::FromErrno(errno, "chmod " + file);
  if (::renameat(AT_FDCWD, file.c_str(), DirFd(), At(name).c_str()) == 0)
    return Status::Ok();
  if (errno != EXDEV)
    return Status::FromErrno(errno, "rename " + file + " to " + final_path);
  // Another filesystem: a copy in data/txn, renamed into place.
  UniqueFd in(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) return Status::FromErrno(errno, "open " + file);
  const std::string tmp = TempNameFor(root_ + "/data/txn/obj");
  UniqueFd out(
      ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644));
  if (!out.valid()) return Status::FromErrno(errno, "create " + tmp);
  Status st = ForEachBlock(in.get(), kStreamBlock, file,
                           [&](const char* data, size_t size) {
                             return WriteAll(out.get(), data, size, tmp);
                           });
  out.Reset();
  if (st.ok() && ::rename(tmp.c_str(), final_path.c_str()) != 0)
    st = Status::FromErrno(errno, "rename " + tmp + " to " + final_path);
  if (!st.ok()) ::unlink(tmp.c_str());
  return st;
}

Result<uint64_t> LocalObjectStore::Size(const std::string& name) {
  struct stat st;
  const std::string path = root_ + "/" + name;
  if (::fstatat(DirFd(), At(name).c_str(), &st, 0) != 0) {
    if (errno == ENOENT) return Status::NotFound(name);
    return Status::FromErrno(errno, "stat " + path);
  }
  return static_cast<uint64_t>(st.st_size);
}

Status LocalObjectStore::Remove(const std::string& name) {
  if (::unlinkat(DirFd(), At(name).c_str(), 0) != 0 && errno != ENOENT)
    return Status::FromErrno(errno, "unlink " + name);
  return Status::Ok();
}

Result<std::vector<std::string>> LocalObjectStore::ListObjects() {
  std::vector<std::string> out;
  for (int i = 0; i < 256; ++i) {
    uint8_t b = static_cast<uint8_t>(i);
    std::string dir = "data/" + ToHex(&b, 1);
    auto names = ListDirectory(root_ + "/" + dir);
    if (!names.ok()) {
      if (names.status().IsNotFound()) continue;
      return names.status();
    }
    for (auto& n : *names) out.push_back(dir + "/" + n);
  }
  return out;
}

bool MemoryObjectStore::Exists(const std::string& name) {
  MutexLock l(&mu_);
  return files_.count(name) > 0;
}

Status MemoryObjectStore::Put(const std::string& name, std::string_view bytes) {
  MutexLock l(&mu_);
  files_[name] = std::string(bytes);
  ++puts_;
  return Status::Ok();
}

Result<std::string> MemoryObjectStore::Get(const std::string& name) {
  MutexLock l(&mu_);
  auto it = files_.find(name);
  if (it == files_.end()) return Status::NotFound(name);
  return it->second;
}

Status MemoryObjectStore::Remove(const std::string& name) {
  MutexLock l(&mu_);
  files_.erase(name);
  return Status::Ok();
}

Result<std::vector<std::string>> MemoryObjectStore::ListObjects() {
  MutexLock l(&mu_);
  std::vector<std::string> out;
  for (auto& [k, v] : files_)
    if (k.rfind("data/", 0) == 0) out.push_back(k);
  return out;
}

size_t MemoryObjectStore::puts() const {
  MutexLock l(&mu_);
  return puts_;
}

Result<std::string> ReadVerifiedObject(ObjectStore* store, const Digest& digest,
                                       ObjectSuffix suffix, bool compressed) {
  std::string name = ObjectPath(digest, suffix);
  CVMFS_ASSIGN_OR_RETURN(std::string bytes, store->Get(name));
  if (HashString(digest.algorithm, bytes) != digest)
    return Status::Corruption("object " + name + " does not match its hash");
  if (!compressed) return bytes;
  std::string raw;
  CVMFS_RETURN_IF_ERROR(Decompress(bytes, &raw).Annotate(name));
  return raw;
}

Result<StoredObject> StoreObject(ObjectStore* store, std::string_view content,
                                 ObjectSuffix suffix,
                                 const StoreObjectOptions& options) {
  std::string own_scratch;
  std::string* scratch = options.scratch ? options.scratch : &own_scratch;
  std::string_view stored = content;
  if (options.compression == Compression::kZlib) {
    if (options.compressor)
      options.compressor->Compress(content, scratch);
    else
      *scratch = ZlibCompress(content);
    stored = *scratch;
  }
  StoredObject object;
  object.digest = HashString(options.hash, stored);
  object.stored_size = stored.size();
  const std::string name = ObjectPath(object.digest, suffix);
  auto written = store->PutIfAbsent(name, stored);
  if (!written.ok()) return written.status().Annotate("storing " + name);
  object.existed = !*written;
  return object;
}

Result<Digest> StoreObject(ObjectStore* store, std::string_view content,
                           ObjectSuffix suffix, HashAlgorithm hash) {
  StoreObjectOptions options;
  options.hash = hash;
  CVMFS_ASSIGN_OR_RETURN(StoredObject object,
                         StoreObject(store, content, suffix, options));
  return object.digest;
}

}  // namespace cvmfs
