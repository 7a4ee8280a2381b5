// The access log of the embedded HTTP server, in the Common Log Format that
// Apache, Squid's log tools and every log analyser read:
//
//   127.0.0.1 - - [10/Oct/2024:13:55:36 +0200] "GET /cvmfs/x/.cvmfspublished
//   HTTP/1.1" 200 612
//
// The byte count is the body the response carried ("-" for none, e.g. HEAD
// and 304), as Apache's %b. Characters outside printable ASCII and the
// double quote in the request line are written as \xNN, so a request cannot
// forge log lines.
//
// Thread safety: Write() may be called from any thread; each line is one
// write(2) to an O_APPEND descriptor, so lines never interleave.
#ifndef SERVER_ACCESS_LOG_H_
#define SERVER_ACCESS_LOG_H_

#include <cstdint>
#include <ctime>
#include <memory>
#include <string>

#include "cvmfs/file_util.h"
#include "cvmfs/status.h"

namespace server {

struct AccessRecord {
  std::string client;   // numeric address
  time_t time = 0;      // when the request arrived
  std::string method;   // GET, HEAD, ...
  std::string target;   // the request target as received (not decoded)
  std::string version;  // HTTP/1.1
  unsigned status = 0;
  uint64_t body_bytes = 0;
};

// One log line, with the trailing newline; the time in local time.
std::string FormatCommonLogLine(const AccessRecord& record);

class AccessLog {
 public:
  // Appends to `path`, creating it (mode 0644) if needed.
  static cvmfs::Result<std::unique_ptr<AccessLog>> Open(
      const std::string& path);

  // Best effort: a full disk must not stop the server from serving.
  void Write(const AccessRecord& record);

 private:
  explicit AccessLog(cvmfs::UniqueFd fd) : fd_(std::move(fd)) {}
  cvmfs::UniqueFd fd_;
};

}  // namespace server

#endif  // SERVER_ACCESS_LOG_H_
