// EventStreamParser: the server-sent events (text/event-stream) a
// notification subscription answers with (doc/notifications.md):
//
//   data: {"version":1,...}\n
//   \n
//
// Bytes are fed as they arrive, split anywhere; each complete event (its
// "data:" lines joined by '\n', the one space after the colon dropped) is
// returned once its blank line is seen. Comment lines (":...") and other
// fields (event:, id:, retry:) are ignored, as are lines that are not
// fields at all (CVMFS's gateway ends a subscription with a plain JSON
// reply). "\r\n" line ends are accepted. A line or event longer than
// kMaxNotificationSize is an error: the stream is not a notification stream.
//
// Thread safety: none; one per connection.
#ifndef CVMFS_NETWORK_EVENT_STREAM_H_
#define CVMFS_NETWORK_EVENT_STREAM_H_

#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs {

class EventStreamParser {
 public:
  // Appends the events completed by `bytes` to `events`.
  Status Feed(std::string_view bytes, std::vector<std::string>* events);

 private:
  void Line(std::string_view line, std::vector<std::string>* events);

  std::string line_;  // the incomplete line so far
  std::string data_;  // the data of the event so far
  bool has_data_ = false;
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_EVENT_STREAM_H_
