#include "client/daemon_log.h"

#include <gtest/gtest.h>
#include <syslog.h>

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace cvmfs::client {
namespace {

// What would have gone to syslog(3).
class RecordingSyslogSink : public SyslogSink {
 public:
  explicit RecordingSyslogSink(std::vector<std::pair<int, std::string>>* out)
      : out_(out) {}
  void Write(int priority, const std::string& text) override {
    out_->emplace_back(priority, text);
  }

 private:
  std::vector<std::pair<int, std::string>>* out_;
};

TEST(SyslogPriorityTest, LevelsAsCvmfs) {
  SyslogOptions o;  // level 3, no facility
  EXPECT_EQ(SyslogPriority(o, Severity::kInfo), LOG_USER | LOG_NOTICE);
  EXPECT_EQ(SyslogPriority(o, Severity::kWarning), LOG_USER | LOG_WARNING);
  EXPECT_EQ(SyslogPriority(o, Severity::kError), LOG_USER | LOG_ERR);
  EXPECT_EQ(SyslogPriority(o, Severity::kDebug), -1);
  o.level = 1;
  EXPECT_EQ(SyslogPriority(o, Severity::kInfo), LOG_USER | LOG_DEBUG);
  o.level = 2;
  EXPECT_EQ(SyslogPriority(o, Severity::kInfo), LOG_USER | LOG_INFO);
  // Warnings and errors keep their priority whatever the level.
  EXPECT_EQ(SyslogPriority(o, Severity::kError), LOG_USER | LOG_ERR);
}

TEST(SyslogPriorityTest, FacilityAsCvmfs) {
  SyslogOptions o;
  o.facility = 0;
  EXPECT_EQ(SyslogPriority(o, Severity::kInfo), LOG_LOCAL0 | LOG_NOTICE);
  o.facility = 7;
  EXPECT_EQ(SyslogPriority(o, Severity::kError), LOG_LOCAL7 | LOG_ERR);
  o.facility = 8;  // out of range: LOG_USER, as CVMFS
  EXPECT_EQ(SyslogPriority(o, Severity::kInfo), LOG_USER | LOG_NOTICE);
}

TEST(SyslogTextTest, Prefix) {
  SyslogOptions o;
  EXPECT_EQ(SyslogText(o, "mounted"), "mounted");
  o.prefix = "atlas.cern.ch";
  EXPECT_EQ(SyslogText(o, "mounted"), "(atlas.cern.ch) mounted");
}

TEST(DaemonLogTest, SyslogGetsEventsAndDebugLogGetsAll) {
  testing::TempDir tmp;
  const std::string debuglog = JoinPath(tmp.path(), "debug.log");
  std::vector<std::pair<int, std::string>> sent;
  SyslogOptions o;
  o.level = 2;
  o.facility = 3;
  o.prefix = "repo.example.org";
  {
    DaemonLog log(debuglog, o, std::make_unique<RecordingSyslogSink>(&sent));
    EventLog events = log.AsEventLog();
    log.Debug("loading catalog");
    events(Severity::kInfo, "switched to catalog revision 5 from 4");
    events(Severity::kWarning, "switching host from a to b (timeout)");
    log.Error("download of x failed");
  }
  ASSERT_EQ(sent.size(), 3u);
  EXPECT_EQ(sent[0].first, LOG_LOCAL3 | LOG_INFO);
  EXPECT_EQ(sent[0].second,
            "(repo.example.org) switched to catalog revision 5 from 4");
  EXPECT_EQ(sent[1].first, LOG_LOCAL3 | LOG_WARNING);
  EXPECT_EQ(sent[2].first, LOG_LOCAL3 | LOG_ERR);
  EXPECT_EQ(sent[2].second, "(repo.example.org) download of x failed");
  auto text = ReadFile(debuglog);
  ASSERT_TRUE(text.ok());
  EXPECT_NE(text->find("[debug] loading catalog\n"), std::string::npos);
  EXPECT_NE(text->find("[info] switched to catalog revision 5"),
            std::string::npos);
  EXPECT_NE(text->find("[warning] switching host"), std::string::npos);
  EXPECT_NE(text->find("[error] download of x failed\n"), std::string::npos);
}

TEST(DaemonLogTest, UnwritableDebugLogIsReportedToSyslog) {
  std::vector<std::pair<int, std::string>> sent;
  DaemonLog log("/nonexistent-dir/debug.log", SyslogOptions{},
                std::make_unique<RecordingSyslogSink>(&sent));
  log.Info("still logging");
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_NE(sent[0].second.find("cannot open the debug log"),
            std::string::npos);
  EXPECT_EQ(sent[1].second, "still logging");
}

}  // namespace
}  // namespace cvmfs::client
