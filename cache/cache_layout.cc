#include "cache/cache_layout.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstdio>

#include "cvmfs/file_util.h"

namespace cache {

using cvmfs::Digest;
using cvmfs::Status;

std::string ObjectName(const Digest& id) {
  std::string text = id.ToString();
  return text.substr(0, 2) + "/" + text.substr(2);
}

std::string ObjectPath(const std::string& dir, const Digest& id) {
  return cvmfs::JoinPath(dir, ObjectName(id));
}

std::string BucketName(int bucket) {
  char name[3];
  std::snprintf(name, sizeof(name), "%02x", bucket & 0xff);
  return name;
}

std::optional<Digest> ParseObjectName(std::string_view bucket_name,
                                      std::string_view file_name) {
  if (bucket_name.size() != 2) return std::nullopt;
  std::string text(bucket_name);
  text.append(file_name);
  auto digest = Digest::Parse(text);
  if (!digest.ok() || digest->algorithm == cvmfs::HashAlgorithm::kMd5)
    return std::nullopt;
  // Only the canonical spelling: "AB..." or a suffixed name is foreign.
  if (digest->ToString() != text) return std::nullopt;
  return *digest;
}

cvmfs::Result<std::string> BreadcrumbPath(const std::string& dir,
                                          const std::string& fqrn) {
  if (fqrn.empty() || fqrn == "." || fqrn == ".." ||
      fqrn.find('/') != std::string::npos ||
      fqrn.find('\0') != std::string::npos) {
    return Status::InvalidArgument("invalid repository name '" + fqrn +
                                   "' for a breadcrumb");
  }
  return cvmfs::JoinPath(dir, std::string(kBreadcrumbPrefix) + fqrn);
}

namespace {

// mkdir of one level; an existing directory is fine. Cheaper than MakeDirs
// for the 258 subdirectories (no walk over the parents).
Status MakeSubdir(const std::string& dir, std::string_view name) {
  std::string path = cvmfs::JoinPath(dir, name);
  // stat() first: on a busy file system a failing mkdir() costs far more.
  if (cvmfs::IsDirectory(path)) return Status::Ok();
  if (::mkdir(path.c_str(), kDirMode) == 0) return Status::Ok();
  if (errno == EEXIST && cvmfs::IsDirectory(path)) return Status::Ok();
  if (errno == EEXIST)
    return Status::IoError(path + " exists and is not a directory");
  return Status::FromErrno(errno, "mkdir " + path);
}

}  // namespace

Status CreateLayout(const std::string& dir, bool private_dir) {
  // Parents as mkdir -p makes them (0755): a client running as CVMFS_USER
  // must pass CVMFS_CACHE_BASE.
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0)
    CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(dir.substr(0, slash), 0755));
  CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(dir, kDirMode));
  // A cache made before (0755) is closed too: nothing below the directory
  // is reachable by others once it is 0700.
  struct stat st;
  if (private_dir && ::stat(dir.c_str(), &st) == 0 && (st.st_mode & 077) != 0 &&
      ::chmod(dir.c_str(), kDirMode) != 0)
    return Status::FromErrno(errno, "chmod 0700 " + dir);
  for (int i = 0; i <= 0xff; ++i)
    CVMFS_RETURN_IF_ERROR(MakeSubdir(dir, BucketName(i)));
  CVMFS_RETURN_IF_ERROR(MakeSubdir(dir, kTxnDir));
  return MakeSubdir(dir, kQuarantineDir);
}

}  // namespace cache
