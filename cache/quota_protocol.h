// The cache manager protocol: constants, framing and status conversion.
// The format is written down in doc/format-cache-protocol.md; the messages
// are in quota_protocol.proto.
//
//   +----------------------+------------------------------+
//   | length (4 bytes, BE) | protobuf Request or Reply    |
//   +----------------------+------------------------------+
//
// Thread safety: free functions; one thread per fd at a time.
#ifndef CACHE_QUOTA_PROTOCOL_H_
#define CACHE_QUOTA_PROTOCOL_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "cvmfs/file_util.h"
#include "cvmfs/status.h"
#include "quota_protocol.pb.h"

namespace cache {

inline constexpr uint32_t kQuotaProtocolVersion = 1;
inline constexpr uint32_t kMaxFrameBytes = 256u << 20;
inline constexpr size_t kFrameHeaderBytes = 4;

// "<length><bytes>" of a serialized message.
std::string EncodeFrame(const google::protobuf::MessageLite& msg);
// Writes one frame (MSG_NOSIGNAL: a vanished peer is EPIPE, not SIGPIPE).
// Unavailable if the peer is gone.
cvmfs::Status SendFrame(int fd, const google::protobuf::MessageLite& msg);
// Reads one frame into `msg`, blocking. Unavailable on EOF or a reset
// connection; Corruption for an oversized or unparsable frame.
cvmfs::Status ReceiveFrame(int fd, google::protobuf::MessageLite* msg);
// Takes one complete frame's payload off the front of `buffer` (bytes read
// by a non-blocking server). False if incomplete; Corruption if oversized.
cvmfs::Result<bool> TakeFrame(std::string* buffer, std::string* payload);

protocol::StatusCode ToWireCode(cvmfs::Status::Code code);
// The reply's code and message as a Status.
cvmfs::Status StatusOf(const protocol::Reply& reply);
void SetStatus(const cvmfs::Status& status, protocol::Reply* reply);

// Connects to the Unix stream socket at `path` (paths too long for
// sun_path are reached through /proc/self/fd). Keeps errno semantics in
// the Status: callers look at the returned errno to tell "no listener".
cvmfs::Result<cvmfs::UniqueFd> ConnectUnixSocket(const std::string& path,
                                                 int* error_number);
// Binds and listens on `path` (an old socket file there is removed).
cvmfs::Result<cvmfs::UniqueFd> ListenUnixSocket(const std::string& path);

}  // namespace cache

#endif  // CACHE_QUOTA_PROTOCOL_H_
