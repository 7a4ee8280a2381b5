// Temporary names of the publisher, and the removal of those a killed
// publisher leaves behind.
//
// Every temporary carries the pid of the process that made it:
//
//   <spool>/tmp/work.<pid>.XXXXXX      Repository::MakeTempDir: catalogs,
//                                      history and reflog being built
//   <spool>/tmp/mkfs.<pid>.XXXXXX      Mkfs
//   <storage>/data/txn/.tmp.<pid>.<n>  an object being written
//                                      (cvmfs::TempNameFor, via
//                                      LocalObjectStore::Put)
//
// A process killed by SIGKILL (or a power cut) cannot remove them; nothing
// refers to them, so the served revision is unaffected, but they hold disk
// space. When a publish takes the repository lock it removes those whose
// process is gone. Commands that do not take the lock (check, info,
// list-catalogs, resign) make temporaries too; their processes are alive,
// so theirs are kept. A pid reused by an unrelated process only delays the
// removal. Publishers in different pid namespaces must not share a spool
// directory.
//
// Thread safety: free functions without shared state.
#ifndef PUBLISHER_STALE_TEMPORARIES_H_
#define PUBLISHER_STALE_TEMPORARIES_H_

#include <sys/types.h>

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "cvmfs/status.h"

namespace publisher {

// "<dir>/<kind>.<pid>.XXXXXX", a template for mkdtemp(3).
std::string TempDirTemplate(const std::string& dir, std::string_view kind);

// The pid in a temporary's name ("work.<pid>.…", "mkfs.<pid>.…",
// ".tmp.<pid>.…"), or nullopt for any other name.
std::optional<pid_t> TemporaryOwner(std::string_view name);

// Whether `pid` is a live process (kill(pid, 0), EPERM counts as alive).
bool ProcessAlive(pid_t pid);

// Removes the temporaries directly in `dir` whose owner `alive` says is
// gone; a missing `dir` is ok. Returns how many it removed.
cvmfs::Result<size_t> RemoveStaleTemporaries(
    const std::string& dir,
    const std::function<bool(pid_t)>& alive = ProcessAlive);

}  // namespace publisher

#endif  // PUBLISHER_STALE_TEMPORARIES_H_
