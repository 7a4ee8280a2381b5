// Release manager hooks: bash functions in etc/cvmfs/cvmfs_server_hooks.sh
// (under CVMFS_ROOTDIR), as in CVMFS:
//
//   transaction_before_hook, transaction_after_hook,
//   publish_before_hook, publish_after_hook,
//   abort_before_hook, abort_after_hook        called with $1 = fqrn
//
// A hook runs as `bash -c 'source FILE; NAME "$1"'` with the caller's
// environment; its output goes to the caller's stdout/stderr. A missing file
// or an undefined function is no hook. A before-hook that fails (non-zero
// exit) stops the step before it changed anything; an after-hook's failure is
// reported but the step has already happened.
//
// Thread safety: free function; runs a child process and waits for it.
#ifndef PUBLISHER_HOOKS_H_
#define PUBLISHER_HOOKS_H_

#include <string>

#include "cvmfs/status.h"
#include "cvmfs/system_paths.h"

namespace publisher {

// The hook file of this installation.
std::string HooksFile(const cvmfs::SystemPaths& paths);

// Runs hook function `name` from `hooks_file` for `fqrn`. Ok when there is no
// such file or function; otherwise Unavailable naming the hook and its exit
// status when it fails.
cvmfs::Status RunHook(const std::string& hooks_file, const std::string& name,
                      const std::string& fqrn);

}  // namespace publisher

#endif  // PUBLISHER_HOOKS_H_
