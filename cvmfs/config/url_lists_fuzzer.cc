// Fuzz target: CVMFS_SERVER_URL and CVMFS_HTTP_PROXY values (url_lists.h),
// as they come from configuration files and `cvmfs_talk host set` /
// `proxy set`. The input's first line is the fqrn, the rest the list.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/config/url_lists.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string input(reinterpret_cast<const char*>(data), size);
  size_t nl = input.find('\n');
  std::string fqrn = nl == std::string::npos ? "" : input.substr(0, nl);
  std::string text = nl == std::string::npos ? input : input.substr(nl + 1);
  std::string org = fqrn.substr(0, fqrn.find('.'));
  auto urls = cvmfs::ParseServerUrls(text, fqrn, org);
  if (urls.ok()) {
    for (const std::string& url : *urls) {
      if (url.empty() || url.back() == '/') {
        fprintf(stderr, "server URL '%s' is empty or ends in '/'\n",
                url.c_str());
        abort();
      }
    }
  }
  auto groups = cvmfs::ParseProxyGroups(text);
  if (groups.ok()) {
    for (const auto& group : *groups) {
      if (group.empty()) {
        fprintf(stderr, "empty proxy group\n");
        abort();
      }
    }
  }
  return 0;
}
