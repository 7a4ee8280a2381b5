#include "server/request_target.h"

#include <cctype>

namespace server {
namespace {

// `s` starts with `prefix`, ignoring ASCII case.
bool StartsWithNoCase(std::string_view s, std::string_view prefix) {
  if (s.size() < prefix.size()) return false;
  for (size_t i = 0; i < prefix.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(s[i])) != prefix[i])
      return false;
  return true;
}

}  // namespace

std::string_view RequestPath(std::string_view target) {
  if (!target.empty() && target[0] == '/') return target;
  for (std::string_view scheme : {"http://", "https://"}) {
    if (!StartsWithNoCase(target, scheme)) continue;
    std::string_view rest = target.substr(scheme.size());
    size_t slash = rest.find('/');
    if (slash == 0) return "";  // no authority: not a URI we can serve
    return slash == std::string_view::npos ? "/" : rest.substr(slash);
  }
  return "";
}

}  // namespace server
