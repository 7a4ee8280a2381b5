#include "cvmfs/network/url_host.h"

#include <algorithm>

namespace cvmfs {

std::string UrlHostName(std::string_view url) {
  size_t begin = url.find("//");
  if (begin == std::string_view::npos) return "";
  begin += 2;
  const size_t path = url.find('/', begin);
  const size_t at = url.substr(0, path).find('@', begin);
  if (at != std::string_view::npos) begin = at + 1;
  size_t end = begin;
  if (end < url.size() && url[end] == '[') {
    end = url.find(']', begin);
    if (end == std::string_view::npos) return "";
    ++end;
  }
  end = std::min(url.find_first_of(":/", end), url.size());
  return std::string(url.substr(begin, end - begin));
}

}  // namespace cvmfs
