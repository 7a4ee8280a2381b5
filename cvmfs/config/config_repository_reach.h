// Reaching the configuration repository (CVMFS_CONFIG_REPOSITORY) before
// its files are read (doc/client.md, "Config repositories").
//
// On a worker node the configuration repository is mounted by autofs the
// first time a name below the mount directory is looked up. cvmfs2 itself
// cannot trigger that: autofs mounts a repository on behalf of mount(8),
// which it runs in its own process group, and the kernel never triggers a
// mount for that group (it takes it for the automounter itself). So, as
// CVMFS does, a short-lived helper process in a session of its own opens
// the directory, which mounts the repository, and holds it open, so that
// autofs does not expire it while the mount that needs it is set up.
//
// Thread safety: thread-compatible. Reach() forks: call it while the
// process has one thread (cvmfs2 reads its configuration before it starts
// any).
#ifndef CVMFS_CONFIG_CONFIG_REPOSITORY_REACH_H_
#define CVMFS_CONFIG_CONFIG_REPOSITORY_REACH_H_

#include <sys/types.h>

#include <string>

#include "cvmfs/file_util.h"

namespace cvmfs {

// The seam OptionsManager::LoadForRepository calls before it reads a file
// of the configuration repository.
class ConfigRepositoryReach {
 public:
  virtual ~ConfigRepositoryReach() = default;
  // Makes `dir` (<mount dir>/<config repository>/etc/cvmfs) reachable if it
  // can be, and keeps it so until released. Failures are not reported
  // here: the caller finds the directory missing.
  virtual void Reach(const std::string& dir) = 0;
};

// The real one: a helper process opens `dir` from a new session and keeps
// it open until Release() or destruction. Reaching the same directory
// again reuses the holder. The release end of the helper's pipe is
// close-on-exec; a process forked from the owner holds a copy until it
// releases or exits (the helper stays while any holds it).
class AutofsReach final : public ConfigRepositoryReach {
 public:
  AutofsReach() = default;
  ~AutofsReach() override { Release(); }
  AutofsReach(const AutofsReach&) = delete;
  AutofsReach& operator=(const AutofsReach&) = delete;

  void Reach(const std::string& dir) override;
  // Lets the helper exit; the repository may expire afterwards.
  void Release();

 private:
  std::string dir_;
  pid_t holder_ = -1;
  pid_t owner_ = -1;  // the process that forked the holder (reaps it)
  UniqueFd release_;  // the holder exits when every copy is closed
};

}  // namespace cvmfs

#endif  // CVMFS_CONFIG_CONFIG_REPOSITORY_REACH_H_
