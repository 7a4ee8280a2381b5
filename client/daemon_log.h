// DaemonLog: where a mounted repository's messages go (doc/client.md,
// "Logging"), as in CVMFS:
//
//   every message        -> CVMFS_DEBUGLOG, if set ("<UTC time> [level] text")
//   kInfo and above      -> syslog, ident "cvmfs2" with the pid, text
//                           "(<CVMFS_SYSLOG_PREFIX>) <message>"
//
// Syslog priorities (CVMFS's SetLogSyslogLevel / SetLogSyslogFacility):
// kInfo messages go out at the priority CVMFS_SYSLOG_LEVEL names
// (1 = LOG_DEBUG, 2 = LOG_INFO, 3 = LOG_NOTICE, the default); warnings at
// LOG_WARNING and errors at LOG_ERR whatever the level. The facility is
// LOG_LOCAL<n> for CVMFS_SYSLOG_FACILITY=n (0..7), LOG_USER when unset. The
// prefix defaults to the repository name, so the lines of several mounts
// can be told apart.
//
// The syslog side is a SyslogSink, so tests see what would be sent without
// a syslog daemon (RecordingSyslogSink in the test).
//
// Thread safety: all methods may be called from any thread.
#ifndef CLIENT_DAEMON_LOG_H_
#define CLIENT_DAEMON_LOG_H_

#include <cstdio>
#include <memory>
#include <string>

#include "client/event_log.h"
#include "client/log_buffer.h"
#include "cvmfs/mutex.h"

namespace cvmfs::client {

// The syslog parameters, as ClientSettings reads them.
struct SyslogOptions {
  int level = 3;       // CVMFS_SYSLOG_LEVEL, 1..3
  int facility = -1;   // CVMFS_SYSLOG_FACILITY, 0..7; -1 = LOG_USER
  std::string prefix;  // CVMFS_SYSLOG_PREFIX (default: the fqrn); "" = none
};

// The priority (facility | level, as syslog(3) takes it) of a message of
// `severity`; kDebug is never sent and gets -1.
int SyslogPriority(const SyslogOptions& options, Severity severity);
// "(<prefix>) <message>", or the message alone without a prefix.
std::string SyslogText(const SyslogOptions& options,
                       const std::string& message);

// Where syslog lines go. Write must be thread-safe.
class SyslogSink {
 public:
  virtual ~SyslogSink() = default;
  virtual void Write(int priority, const std::string& text) = 0;
};

// The system's syslog(3): openlog("cvmfs2", LOG_PID, facility) for the
// sink's life.
std::unique_ptr<SyslogSink> SystemSyslog(const SyslogOptions& options);

class DaemonLog {
 public:
  // `debuglog`: the CVMFS_DEBUGLOG path or ""; a file that cannot be
  // opened is reported to syslog once and otherwise ignored.
  DaemonLog(const std::string& debuglog, SyslogOptions options,
            std::unique_ptr<SyslogSink> syslog);
  ~DaemonLog();
  DaemonLog(const DaemonLog&) = delete;
  DaemonLog& operator=(const DaemonLog&) = delete;

  void Log(Severity severity, const std::string& message);
  void Debug(const std::string& m) { Log(Severity::kDebug, m); }
  void Info(const std::string& m) { Log(Severity::kInfo, m); }
  void Warning(const std::string& m) { Log(Severity::kWarning, m); }
  void Error(const std::string& m) { Log(Severity::kError, m); }
  // This log as an EventLog for the components; borrows `this`.
  EventLog AsEventLog();
  // The last messages sent to syslog (user.logbuffer).
  const LogBuffer& recent() const { return recent_; }

 private:
  void WriteDebugLog(Severity severity, const std::string& message);

  const SyslogOptions options_;
  const std::unique_ptr<SyslogSink> syslog_;
  LogBuffer recent_;
  // Guards the writes to *file_ (file_ itself is set once, in the
  // constructor, before any thread logs); leaf lock.
  cvmfs::Mutex mu_;
  FILE* file_ PT_GUARDED_BY(mu_) = nullptr;
};

}  // namespace cvmfs::client

#endif  // CLIENT_DAEMON_LOG_H_
