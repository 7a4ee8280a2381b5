#include "publisher/spool_layout.h"

#include <sys/stat.h>

#include <cerrno>

#include "cvmfs/file_util.h"

namespace publisher {

SpoolLayout SpoolLayout::For(const cvmfs::SystemPaths& paths,
                             const std::string& fqrn,
                             const std::string& spool_dir) {
  SpoolLayout l;
  l.spool = spool_dir;
  l.rdonly = spool_dir + "/rdonly";
  l.scratch = spool_dir + "/scratch";
  l.scratch_current = spool_dir + "/scratch/current";
  l.wastebin = spool_dir + "/scratch/wastebin";
  l.ofs_workdir = spool_dir + "/ofs_workdir";
  l.tmp = spool_dir + "/tmp";
  l.client_cache = spool_dir + "/cache";
  l.client_config = spool_dir + "/client.conf";
  l.client_local = spool_dir + "/client.local";
  l.client_log = spool_dir + "/client.log";
  l.in_transaction = spool_dir + "/in_transaction";
  l.publishing = spool_dir + "/publishing";
  l.content_index = spool_dir + "/content_index.db";
  l.lock = spool_dir + "/is_publishing.lock";
  l.session_token = spool_dir + "/session_token";
  l.union_mount = paths.MountRoot() + "/" + fqrn;
  return l;
}

namespace {

// a+x on a directory an older version made 0700: the read-only mount's
// client runs as CVMFS_USER and must pass it to reach its cache.
cvmfs::Status MakeSearchable(const std::string& dir) {
  struct stat st;
  if (::stat(dir.c_str(), &st) != 0)
    return cvmfs::Status::FromErrno(errno, "stat " + dir);
  if ((st.st_mode & 0011) == 0011) return cvmfs::Status::Ok();
  if (::chmod(dir.c_str(), (st.st_mode & 07777) | 0011) != 0)
    return cvmfs::Status::FromErrno(errno, "chmod a+x " + dir);
  return cvmfs::Status::Ok();
}

}  // namespace

cvmfs::Status SpoolLayout::CreateDirectories() const {
  for (const std::string& dir :
       {rdonly, scratch_current, ofs_workdir, client_cache, union_mount})
    CVMFS_RETURN_IF_ERROR(cvmfs::MakeDirs(dir, 0755));
  CVMFS_RETURN_IF_ERROR(MakeSearchable(spool));
  const size_t slash = spool.find_last_of('/');
  if (slash != std::string::npos && slash > 0)
    CVMFS_RETURN_IF_ERROR(MakeSearchable(spool.substr(0, slash)));
  return cvmfs::MakeDirs(tmp, 0700);
}

}  // namespace publisher
