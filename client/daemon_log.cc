#include "client/daemon_log.h"

#include <syslog.h>

#include <cerrno>
#include <cstring>
#include <ctime>

#include "cvmfs/time_format.h"

namespace cvmfs::client {

namespace {

const char* SeverityName(Severity s) {
  switch (s) {
    case Severity::kDebug:
      return "debug";
    case Severity::kInfo:
      return "info";
    case Severity::kWarning:
      return "warning";
    case Severity::kError:
      return "error";
  }
  return "?";
}

int Facility(int local) {
  constexpr int kLocal[] = {LOG_LOCAL0, LOG_LOCAL1, LOG_LOCAL2, LOG_LOCAL3,
                            LOG_LOCAL4, LOG_LOCAL5, LOG_LOCAL6, LOG_LOCAL7};
  return local >= 0 && local <= 7 ? kLocal[local] : LOG_USER;
}

class SystemSyslogSink : public SyslogSink {
 public:
  explicit SystemSyslogSink(int facility) {
    ::openlog("cvmfs2", LOG_PID, facility);
  }
  ~SystemSyslogSink() override { ::closelog(); }
  void Write(int priority, const std::string& text) override {
    ::syslog(priority, "%s", text.c_str());
  }
};

}  // namespace

int SyslogPriority(const SyslogOptions& options, Severity severity) {
  int level;
  switch (severity) {
    case Severity::kDebug:
      return -1;
    case Severity::kInfo:
      level = options.level == 1   ? LOG_DEBUG
              : options.level == 2 ? LOG_INFO
                                   : LOG_NOTICE;
      break;
    case Severity::kWarning:
      level = LOG_WARNING;
      break;
    default:
      level = LOG_ERR;
      break;
  }
  return Facility(options.facility) | level;
}

std::string SyslogText(const SyslogOptions& options,
                       const std::string& message) {
  if (options.prefix.empty()) return message;
  return "(" + options.prefix + ") " + message;
}

std::unique_ptr<SyslogSink> SystemSyslog(const SyslogOptions& options) {
  return std::make_unique<SystemSyslogSink>(Facility(options.facility));
}

DaemonLog::DaemonLog(const std::string& debuglog, SyslogOptions options,
                     std::unique_ptr<SyslogSink> syslog)
    : options_(std::move(options)), syslog_(std::move(syslog)) {
  if (debuglog.empty()) return;
  FILE* f = std::fopen(debuglog.c_str(), "ae");
  if (!f) {
    Error("cannot open the debug log " + debuglog + ": " +
          std::strerror(errno));
    return;
  }
  cvmfs::MutexLock lock(&mu_);
  file_ = f;
}

DaemonLog::~DaemonLog() {
  cvmfs::MutexLock lock(&mu_);
  if (file_) std::fclose(file_);
}

void DaemonLog::Log(Severity severity, const std::string& message) {
  WriteDebugLog(severity, message);
  const int priority = SyslogPriority(options_, severity);
  if (priority >= 0) recent_.Append(::time(nullptr), message);
  if (priority >= 0 && syslog_)
    syslog_->Write(priority, SyslogText(options_, message));
}

EventLog DaemonLog::AsEventLog() {
  return [this](Severity s, const std::string& m) { Log(s, m); };
}

void DaemonLog::WriteDebugLog(Severity severity, const std::string& message) {
  cvmfs::MutexLock lock(&mu_);
  if (!file_) return;
  const std::string stamp = cvmfs::FormatTime(
      ::time(nullptr), cvmfs::kDateTimeFormat, cvmfs::TimeZone::kUtc);
  std::fprintf(file_, "%s [%s] %s\n", stamp.c_str(), SeverityName(severity),
               message.c_str());
  std::fflush(file_);
}

}  // namespace cvmfs::client
