// The control socket of a mount ("talk socket"; doc/operations.md, "The
// control socket"): where it lives, and the Unix stream sockets both sides
// use.
//
// Protocol, as CVMFS's cvmfs_talk speaks it: the client connects, writes one
// command line and reads the reply until the server closes the connection.
// The command ends at a newline, a NUL byte, the client's end of writing
// (shutdown), or when the client pauses after sending (CVMFS's own client
// neither ends its command with a newline nor shuts down its side). One
// connection carries one command.
//
// Socket paths may be longer than sockaddr_un allows (108 bytes): such a
// path is reached through /proc/self/fd/<dir fd>/<name>.
//
// Thread safety: free functions, no shared state.
#ifndef CLIENT_TALK_TALK_SOCKET_H_
#define CLIENT_TALK_TALK_SOCKET_H_

#include <string>

#include "cvmfs/file_util.h"
#include "cvmfs/status.h"

namespace cvmfs::client {

// CVMFS's name: <cache directory>/cvmfs_io.<fqrn>.
std::string TalkSocketPath(const std::string& cache_dir,
                           const std::string& fqrn);

// A listening socket at `path` with mode `mode`. A socket file nobody
// listens on any more (left by a crashed client) is replaced; Busy if a
// live process listens there.
Result<UniqueFd> ListenUnixSocket(const std::string& path, int mode);

// A connection to `path`. Unavailable (naming the path) if nobody listens.
Result<UniqueFd> ConnectUnixSocket(const std::string& path);

// Sends `command` to the talk socket at `path` and returns the whole reply.
// Unavailable if nobody answers within `timeout_s` seconds.
Result<std::string> TalkRequest(const std::string& path,
                                const std::string& command, int timeout_s = 60);

}  // namespace cvmfs::client

#endif  // CLIENT_TALK_TALK_SOCKET_H_
