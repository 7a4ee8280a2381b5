// EventLog: how the client's components report what an operator should see
// (doc/operations.md, "Logs"): a severity and one line of text. The daemon
// (client/daemon_log.h) sends kDebug to CVMFS_DEBUGLOG only and the others
// also to syslog, at the priorities CVMFS uses.
//
// Thread safety: an EventLog is called from any thread; the function behind
// it must be thread-safe.
#ifndef CLIENT_EVENT_LOG_H_
#define CLIENT_EVENT_LOG_H_

#include <functional>
#include <string>

namespace cvmfs::client {

enum class Severity {
  kDebug,    // steps, for the debug log only (CVMFS kLogDebug)
  kInfo,     // normal events: CVMFS_SYSLOG_LEVEL's priority (kLogSyslog)
  kWarning,  // degraded but working: LOG_WARNING (kLogSyslogWarn)
  kError,    // a request or the mount failed: LOG_ERR (kLogSyslogErr)
};

using EventLog = std::function<void(Severity, const std::string&)>;

}  // namespace cvmfs::client

#endif  // CLIENT_EVENT_LOG_H_
