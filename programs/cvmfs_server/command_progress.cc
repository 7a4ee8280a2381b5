#include "programs/cvmfs_server/command_progress.h"

#include <unistd.h>

#include <cstdio>
#include <cstdlib>

namespace cvmfs_server {

cvmfs::Result<std::unique_ptr<CommandProgress>> CommandProgress::Start(
    const std::string& label, const char* unit) {
  const char* setting = std::getenv("CVMFS_SERVER_PROGRESS");
  CVMFS_ASSIGN_OR_RETURN(bool shown,
                         cvmfs::ProgressWanted(setting ? setting : "",
                                               ::isatty(STDERR_FILENO) == 1));
  return std::unique_ptr<CommandProgress>(
      new CommandProgress(label, unit, shown));
}

CommandProgress::CommandProgress(const std::string& label, const char* unit,
                                 bool shown)
    : counters_(unit) {
  if (!shown) return;
  meter_ = std::make_unique<cvmfs::ProgressMeter>(
      label, &counters_, cvmfs::SteadyClock(), [](const std::string& s) {
        std::fwrite(s.data(), 1, s.size(), stderr);
        std::fflush(stderr);
      });
  ticker_ = std::make_unique<cvmfs::ProgressTicker>(meter_.get());
}

void CommandProgress::Finish() {
  ticker_.reset();  // joins the thread and writes the final line
  meter_.reset();
}

}  // namespace cvmfs_server
