#include "server/config_template.h"

namespace server {

// One pass from left to right, so inserted text is never looked at again.
std::string FillTemplate(
    std::string_view text,
    std::initializer_list<std::pair<std::string_view, std::string>> values) {
  std::string out;
  out.reserve(text.size());
  size_t pos = 0;
  while (pos < text.size()) {
    size_t at = text.find('@', pos);
    size_t end = at == std::string_view::npos ? at : text.find('@', at + 1);
    if (end == std::string_view::npos) break;
    out.append(text.substr(pos, at - pos));
    std::string_view name = text.substr(at + 1, end - at - 1);
    const std::string* value = nullptr;
    for (const auto& [key, v] : values)
      if (key == name) value = &v;
    if (value != nullptr) {
      out += *value;
      pos = end + 1;
    } else {  // not a placeholder: keep the '@', look again after it
      out += '@';
      pos = at + 1;
    }
  }
  out.append(text.substr(pos));
  return out;
}

}  // namespace server
