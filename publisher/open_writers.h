// OpenWriters: processes that hold files below a directory open for writing
// (what `lsof` would show), found through /proc/<pid>/fd and the "flags:"
// line of /proc/<pid>/fdinfo/<fd>. A publish refuses to start while there
// are any: the file could change while it is read, or after.
//
// Processes we may not inspect (other users, without root) are skipped.
// Thread safety: free functions.
#ifndef PUBLISHER_OPEN_WRITERS_H_
#define PUBLISHER_OPEN_WRITERS_H_

#include <sys/types.h>

#include <string>
#include <vector>

#include "cvmfs/status.h"

namespace publisher {

struct OpenWriter {
  pid_t pid = 0;
  std::string command;  // /proc/<pid>/comm
  std::string path;     // the open file
};

// Writers of files at or below `dir` (an absolute path without trailing
// slash), found under `proc_root` ("/proc"); the calling process is left out.
std::vector<OpenWriter> FindOpenWriters(const std::string& dir,
                                        const std::string& proc_root = "/proc");

// "pid 123 (vim) has /cvmfs/x/a open for writing; ..." for error messages.
std::string DescribeOpenWriters(const std::vector<OpenWriter>& writers);

}  // namespace publisher

#endif  // PUBLISHER_OPEN_WRITERS_H_
