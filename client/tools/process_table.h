// The node's processes as /proc shows them, for `cvmfs_config fuser` and
// `killall`: which programs run, and which processes use files on a mount.
// Every function takes the /proc directory, so tests pass a fake one.
//
// Nothing here calls into a mounted file system (no stat() through an open
// descriptor): descriptors, the working and root directories and the
// executable are matched by the path the kernel shows for them, mappings
// by their device number. A hung mount cannot hang the scan.
//
// Thread safety: free functions.
#ifndef CLIENT_TOOLS_PROCESS_TABLE_H_
#define CLIENT_TOOLS_PROCESS_TABLE_H_

#include <sys/types.h>

#include <string>
#include <vector>

namespace cvmfs::tools {

// The numeric entries of `proc`, ascending.
std::vector<pid_t> ListPids(const std::string& proc = "/proc");

// The executable of `pid` (the target of <proc>/<pid>/exe, without the
// kernel's " (deleted)" mark); "" if it cannot be read.
std::string ProcessExecutable(const std::string& proc, pid_t pid);

// The processes whose executable is `exe`, except `self`.
std::vector<pid_t> ProcessesRunning(const std::string& proc,
                                    const std::string& exe, pid_t self);

// Whether `pid` has a file at or below `mountpoint` open (a descriptor,
// its working or root directory, its executable), or maps a file of the
// device `device` ("major:minor" in decimal, as stat(2) gives it; "" to
// skip mappings).
bool ProcessUsesMount(const std::string& proc, pid_t pid,
                      const std::string& mountpoint, const std::string& device);

// Every process that uses the mount, ascending.
std::vector<pid_t> ProcessesUsingMount(const std::string& proc,
                                       const std::string& mountpoint,
                                       const std::string& device);

}  // namespace cvmfs::tools

#endif  // CLIENT_TOOLS_PROCESS_TABLE_H_
