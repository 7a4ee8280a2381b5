// Credentials: switching a process started as root to an unprivileged
// user (CVMFS_USER), as cvmfs2 and its cache manager do once the FUSE
// mount is set up (doc/security.md, "Running unprivileged").
//
//   root ──AssumeUser──► real/saved uid 0, effective ids = user
//     ▲                  (files it creates are the user's; no capability
//     │                  is effective)
//     └──RegainRoot──────┘  (for mount(2) only)
//   either ──DropToUser──► every id = user, no capabilities, no new
//                          privileges: there is no way back
//
// glibc applies setresuid/setresgid/setgroups to every thread of the
// process. PR_SET_NO_NEW_PRIVS is a per-thread attribute inherited by new
// threads: AssumeUser sets it, so call it before any thread is started.
//
// Thread safety: free functions changing process-wide state; call them
// from one thread at a time.
#ifndef CVMFS_CREDENTIALS_H_
#define CVMFS_CREDENTIALS_H_

#include <sys/types.h>

#include <string>

#include "cvmfs/status.h"

namespace cvmfs {

struct UserIds {
  std::string name;
  uid_t uid = 0;
  gid_t gid = 0;  // the user's primary group
};

// The passwd entry of `name`; NotFound names the user.
Result<UserIds> LookUpUser(const std::string& name);

// Effective uid, gid and supplementary groups become the user's; the real
// and saved uid stay 0 so that RegainRoot() can undo it. Sets no new
// privileges. Permission unless the effective uid is 0.
Status AssumeUser(const UserIds& user);

// Back to effective root after AssumeUser(). Permission if the real and
// saved uid are not 0.
Status RegainRoot();

// For good: supplementary groups, then gid, then uid (real, effective and
// saved), no new privileges; verified afterwards in /proc: any id left
// over or any capability left is an error.
Status DropToUser(const UserIds& user);

// What the kernel reports for the calling thread (/proc/thread-self/status)
// or for process `pid` (its main thread).
struct ProcessCredentials {
  uid_t uid[3] = {0, 0, 0};  // real, effective, saved
  gid_t gid[3] = {0, 0, 0};
  uint64_t cap_effective = 0, cap_permitted = 0, cap_ambient = 0;
  bool no_new_privs = false;
};
Result<ProcessCredentials> ReadCredentials(pid_t pid = 0);  // 0: thread-self

}  // namespace cvmfs

#endif  // CVMFS_CREDENTIALS_H_
