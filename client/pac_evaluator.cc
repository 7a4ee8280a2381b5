#include "client/pac_evaluator.h"

#include <pacparser.h>

#include <cstdarg>
#include <cstdio>

#include "cvmfs/mutex.h"

namespace cvmfs::client {
namespace {

// libpacparser's state is global; so is the lock that serializes it.
Mutex& PacMutex() {
  static Mutex mu;
  return mu;
}

// Where libpacparser's error printer writes: the messages of the session
// this thread runs (only one runs at a time, under PacMutex).
thread_local std::string* pac_errors = nullptr;

int CollectPacError(const char* fmt, va_list args) {
  char buf[1024];
  const int n = std::vsnprintf(buf, sizeof(buf), fmt, args);
  if (pac_errors && n > 0) {
    std::string msg(buf);
    while (!msg.empty() && (msg.back() == '\n' || msg.back() == ' '))
      msg.pop_back();
    if (!msg.empty()) *pac_errors += (pac_errors->empty() ? "" : "; ") + msg;
  }
  return n;
}

// One libpacparser context: init on construction, cleanup on destruction,
// the process-wide lock held in between.
class PacSession {
 public:
  PacSession() : lock_(&PacMutex()) {
    pac_errors = &errors_;
    pacparser_set_error_printer(CollectPacError);
    ok_ = pacparser_init() != 0;
  }
  ~PacSession() {
    if (ok_) pacparser_cleanup();
    pac_errors = nullptr;
  }
  PacSession(const PacSession&) = delete;
  PacSession& operator=(const PacSession&) = delete;

  bool ok() const { return ok_; }
  Status Error(const std::string& what) const {
    return Status::InvalidArgument(what +
                                   (errors_.empty() ? "" : ": " + errors_));
  }

 private:
  MutexLock lock_;
  std::string errors_;
  bool ok_ = false;
};

}  // namespace

Result<std::vector<std::string>> EvaluatePac(
    const std::string& script, const std::vector<PacQuery>& queries) {
  PacSession session;
  if (!session.ok()) return session.Error("cannot initialize libpacparser");
  if (!pacparser_parse_pac_string(script.c_str()))
    return session.Error("the PAC script does not parse");
  std::vector<std::string> answers;
  for (const PacQuery& q : queries) {
    // The string belongs to the JavaScript engine: copied at once.
    const char* answer = pacparser_find_proxy(q.url.c_str(), q.host.c_str());
    if (!answer)
      return session.Error("FindProxyForURL(\"" + q.url + "\", \"" + q.host +
                           "\") failed");
    answers.emplace_back(answer);
  }
  return answers;
}

}  // namespace cvmfs::client
