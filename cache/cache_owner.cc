#include "cache/cache_owner.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <memory>

#include "cache/cache_layout.h"
#include "cvmfs/file_util.h"

namespace cache {

using cvmfs::Result;
using cvmfs::Status;

namespace {

struct Walk {
  uid_t uid;
  gid_t gid;
  dev_t dev;  // the cache's file system; others are not entered
  int entries = 0;
};

// chown -R below the open directory `dir` (named `path` in messages).
Status ChownBelow(int dir, const std::string& path, Walk* walk) {
  DIR* d = ::fdopendir(dir);
  if (!d) {
    ::close(dir);
    return Status::FromErrno(errno, "opendir " + path);
  }
  std::unique_ptr<DIR, int (*)(DIR*)> closer(d, ::closedir);
  while (struct dirent* e = ::readdir(d)) {
    const std::string name = e->d_name;
    if (name == "." || name == "..") continue;
    struct stat st;
    if (::fstatat(dirfd(d), name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0)
      return Status::FromErrno(errno, "stat " + path + "/" + name);
    if (st.st_dev != walk->dev) continue;
    if (st.st_uid != walk->uid || st.st_gid != walk->gid) {
      if (::fchownat(dirfd(d), name.c_str(), walk->uid, walk->gid,
                     AT_SYMLINK_NOFOLLOW) != 0)
        return Status::FromErrno(errno, "chown " + path + "/" + name);
      ++walk->entries;
    }
    if (S_ISDIR(st.st_mode)) {
      int sub = ::openat(dirfd(d), name.c_str(),
                         O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
      if (sub < 0) return Status::FromErrno(errno, "open " + path + "/" + name);
      CVMFS_RETURN_IF_ERROR(ChownBelow(sub, path + "/" + name, walk));
    }
  }
  return Status::Ok();
}

Result<int> ChownTree(const std::string& dir, const struct stat& top,
                      const cvmfs::UserIds& user) {
  Walk walk{user.uid, user.gid, top.st_dev};
  if (::lchown(dir.c_str(), user.uid, user.gid) != 0)
    return Status::FromErrno(errno, "chown " + dir);
  ++walk.entries;
  int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) return Status::FromErrno(errno, "open " + dir);
  CVMFS_RETURN_IF_ERROR(ChownBelow(fd, dir, &walk));
  return walk.entries;
}

// The directory, and what a client writes first (a cache whose directory
// alone was handed over, as CVMFS's mount helper does, is taken over too).
bool OwnedBy(const std::string& dir, const struct stat& top,
             const cvmfs::UserIds& user) {
  if (top.st_uid != user.uid) return false;
  for (std::string_view name : {kCacheDbName, kTxnDir}) {
    struct stat st;
    const std::string path = cvmfs::JoinPath(dir, std::string(name));
    if (::lstat(path.c_str(), &st) == 0 && st.st_uid != user.uid) return false;
  }
  return true;
}

// Whether `user` may search (traverse) a directory with status `st`.
bool Searchable(const struct stat& st, const cvmfs::UserIds& user) {
  if (st.st_uid == user.uid) return (st.st_mode & S_IXUSR) != 0;
  if (st.st_gid == user.gid) return (st.st_mode & S_IXGRP) != 0;
  return (st.st_mode & S_IXOTH) != 0;
}

// The cache base (the directory's parent) is made searchable: a client
// that ran as root may have made it 0700. Above it, a directory the user
// cannot pass is an error that names it (the administrator's to change).
Status CheckReachable(const std::string& dir, const cvmfs::UserIds& user) {
  std::string path = dir;
  bool base = true;
  while (true) {
    const size_t slash = path.find_last_of('/');
    if (slash == std::string::npos || slash == 0) return Status::Ok();
    path.resize(slash);
    struct stat st;
    if (::stat(path.c_str(), &st) != 0)
      return Status::FromErrno(errno, "stat " + path);
    if (Searchable(st, user)) {
      base = false;
      continue;
    }
    if (base && st.st_uid == 0) {
      if (::chmod(path.c_str(), (st.st_mode & 07777) | 0011) != 0)
        return Status::FromErrno(errno, "chmod a+x " + path);
    } else {
      char mode[8];
      std::snprintf(mode, sizeof(mode), "%04o", st.st_mode & 07777);
      return Status::Permission(
          user.name + " cannot reach " + dir + ": " + path + " (mode " + mode +
          ", uid " + std::to_string(st.st_uid) + ") is not searchable by it");
    }
    base = false;
  }
}

}  // namespace

Result<OwnerChange> HandCacheTo(const std::string& dir,
                                const cvmfs::UserIds& user) {
  const size_t slash = dir.find_last_of('/');
  if (slash != std::string::npos && slash > 0)
    CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(dir.substr(0, slash), 0755));
  if (::mkdir(dir.c_str(), kDirMode) != 0 && errno != EEXIST)
    return Status::FromErrno(errno, "mkdir " + dir);
  struct stat st;
  if (::lstat(dir.c_str(), &st) != 0)
    return Status::FromErrno(errno, "stat " + dir);
  if (!S_ISDIR(st.st_mode))
    return Status::InvalidArgument(
        "the cache directory " + dir +
        " is not a directory (a symbolic link is refused too)");
  OwnerChange change;
  if (!OwnedBy(dir, st, user)) {
    change.taken_over = true;
    CVMFS_ASSIGN_OR_RETURN(change.entries, ChownTree(dir, st, user));
  } else if (st.st_gid != user.gid &&
             ::lchown(dir.c_str(), -1, user.gid) != 0) {
    return Status::FromErrno(errno, "chgrp " + dir);
  }
  if ((st.st_mode & 07777) != kDirMode && ::chmod(dir.c_str(), kDirMode) != 0)
    return Status::FromErrno(errno, "chmod 0700 " + dir);
  if (user.uid != 0) CVMFS_RETURN_IF_ERROR(CheckReachable(dir, user));
  return change;
}

}  // namespace cache
