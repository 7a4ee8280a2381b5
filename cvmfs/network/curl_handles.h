// RAII owners for libcurl handles. Internal to cvmfs/network.
//
// An easy handle must be removed from its multi handle before it is
// destroyed; owners of both keep the multi handle alive longest.
#ifndef CVMFS_NETWORK_CURL_HANDLES_H_
#define CVMFS_NETWORK_CURL_HANDLES_H_

#include <curl/curl.h>

#include <memory>

namespace cvmfs {

struct CurlEasyDeleter {
  void operator()(CURL* curl) const { curl_easy_cleanup(curl); }
};
struct CurlMultiDeleter {
  void operator()(CURLM* multi) const { curl_multi_cleanup(multi); }
};
struct CurlSlistDeleter {
  void operator()(curl_slist* list) const { curl_slist_free_all(list); }
};

using CurlEasyPtr = std::unique_ptr<CURL, CurlEasyDeleter>;
using CurlMultiPtr = std::unique_ptr<CURLM, CurlMultiDeleter>;
using CurlSlistPtr = std::unique_ptr<curl_slist, CurlSlistDeleter>;

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_CURL_HANDLES_H_
