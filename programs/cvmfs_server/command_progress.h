// CommandProgress: the progress line of one long cvmfs_server command
// (publish, ingest, snapshot, gc, check; doc/publishing.md "Progress").
//
// Shown on stderr when CVMFS_SERVER_PROGRESS says so: "auto" (the default)
// only when stderr is a terminal, "on" always, "off" never. Without it the
// command prints exactly what it printed before. The counters exist either
// way (the work updates them at no measurable cost); only the line is not
// drawn. End the CommandProgress (Finish, or destroy it) before the command
// prints its own result, so that the final line comes first.
#ifndef PROGRAMS_CVMFS_SERVER_COMMAND_PROGRESS_H_
#define PROGRAMS_CVMFS_SERVER_COMMAND_PROGRESS_H_

#include <memory>
#include <string>

#include "cvmfs/progress.h"
#include "cvmfs/status.h"

namespace cvmfs_server {

class CommandProgress {
 public:
  // `label` names the command in the line ("publish"); `unit` is what the
  // first phase counts ("files"); a string literal. InvalidArgument for a
  // CVMFS_SERVER_PROGRESS that is not auto, on or off.
  static cvmfs::Result<std::unique_ptr<CommandProgress>> Start(
      const std::string& label, const char* unit);
  ~CommandProgress() { Finish(); }
  CommandProgress(const CommandProgress&) = delete;
  CommandProgress& operator=(const CommandProgress&) = delete;

  cvmfs::ProgressCounters* counters() { return &counters_; }
  // Writes the final line (if shown) and stops redrawing.
  void Finish();

 private:
  CommandProgress(const std::string& label, const char* unit, bool shown);

  cvmfs::ProgressCounters counters_;
  std::unique_ptr<cvmfs::ProgressMeter> meter_;    // null when not shown
  std::unique_ptr<cvmfs::ProgressTicker> ticker_;  // after meter_
};

}  // namespace cvmfs_server

#endif  // PROGRAMS_CVMFS_SERVER_COMMAND_PROGRESS_H_
