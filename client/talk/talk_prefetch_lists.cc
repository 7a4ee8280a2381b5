// The talk commands of recorded prefetch lists (doc/format-prefetch-list.md),
// registered by TalkCommands' constructor:
//
//   prefetch record start   starts recording opened files ("OK")
//   prefetch record stop    ends it; the reply is the recorded path list
//   prefetch record status  whether a recording runs, and its size
//   prefetch lists          the lists of the mounted revision and their state
//
// The recorded list is the reply, not a file the mount writes: cvmfs2 may
// run with privileges the talk client lacks, and must not create files at
// paths a socket message names.
#include "client/talk/talk_commands.h"
#include "cvmfs/prefetch_list.h"

namespace cvmfs::client {

namespace {

std::string RecordingHeader(const std::string& fqrn, uint64_t revision,
                            const OpenRecorder::Recording& r) {
  std::string header = "prefetch list recorded by cvmfs2 on " + fqrn +
                       " revision " + std::to_string(revision) + " (" +
                       std::to_string(r.paths.size()) + " files";
  if (r.dropped > 0)
    header += ", " + std::to_string(r.dropped) +
              " more opened but not recorded: limit reached";
  return header + ")";
}

}  // namespace

void TalkCommands::RegisterPrefetchLists() {
  Add("prefetch record start", false, [this](const std::string&) {
    OpenRecorder* recorder = context_.mount->open_recorder();
    const bool was_recording = recorder->recording();
    recorder->Start();
    return std::string(was_recording ? "OK (unfinished recording discarded)\n"
                                     : "OK\n");
  });
  Add("prefetch record stop", true, [this](const std::string& args) {
    if (!args.empty())
      return std::string(
          "Usage: prefetch record stop (the reply is the list: cvmfs_talk -i "
          "<repository> prefetch record stop > <file>)\n");
    auto recording = context_.mount->open_recorder()->Stop();
    if (!recording) return std::string("Not recording\n");
    return FormatRecordedPaths(
        recording->paths,
        RecordingHeader(fs()->options().fqrn, fs()->revision().revision,
                        *recording));
  });
  Add("prefetch record status", false, [this](const std::string&) {
    OpenRecorder* recorder = context_.mount->open_recorder();
    if (!recorder->recording()) return std::string("Not recording\n");
    return "Recording (" + std::to_string(recorder->size()) + " files)\n";
  });
  Add("prefetch lists", false, [this](const std::string&) {
    return context_.mount->prefetch_lists()->Report();
  });
}

}  // namespace cvmfs::client
