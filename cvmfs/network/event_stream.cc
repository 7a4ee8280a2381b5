#include "cvmfs/network/event_stream.h"

#include "cvmfs/network/notification_message.h"

namespace cvmfs {

Status EventStreamParser::Feed(std::string_view bytes,
                               std::vector<std::string>* events) {
  while (!bytes.empty()) {
    const size_t nl = bytes.find('\n');
    if (nl == std::string_view::npos) {
      line_.append(bytes);
      bytes = {};
    } else {
      line_.append(bytes.substr(0, nl));
      bytes.remove_prefix(nl + 1);
      std::string_view line = line_;
      if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
      Line(line, events);
      line_.clear();
    }
    if (line_.size() > kMaxNotificationSize ||
        data_.size() > kMaxNotificationSize)
      return Status::Corruption("event stream: an event larger than " +
                                std::to_string(kMaxNotificationSize) +
                                " bytes");
  }
  return Status::Ok();
}

void EventStreamParser::Line(std::string_view line,
                             std::vector<std::string>* events) {
  if (line.empty()) {  // the end of an event
    if (has_data_) events->push_back(std::move(data_));
    data_.clear();
    has_data_ = false;
    return;
  }
  if (line.substr(0, 5) != "data:") return;  // comment, other field, noise
  line.remove_prefix(5);
  if (!line.empty() && line.front() == ' ') line.remove_prefix(1);
  if (has_data_) data_ += '\n';
  data_.append(line);
  has_data_ = true;
}

}  // namespace cvmfs
