// S3Transport: one HTTP request to an S3 endpoint, the seam between
// S3ObjectStore (what to ask, retries, listing) and libcurl (how to ask,
// signing). CurlS3Transport (s3_curl_transport.h) is the real one; unit
// tests pass a fake. Implementations are thread-safe.
#ifndef PUBLISHER_S3_TRANSPORT_H_
#define PUBLISHER_S3_TRANSPORT_H_

#include <cstdint>
#include <string>
#include <string_view>

namespace publisher {

struct S3Request {
  enum class Method { kGet, kHead, kPut, kDelete };
  Method method = Method::kGet;
  std::string key;        // object key in the bucket, no leading '/'
  std::string query;      // already encoded, without '?' ("" for none)
  std::string_view body;  // PUT only; borrowed for the call
};

struct S3Response {
  // 0: no HTTP answer (connection refused, timeout, reset).
  long http_code = 0;  // NOLINT(runtime/int): libcurl's type
  std::string body;
  std::string error;  // the transport's message when http_code == 0
  // Content-Length of the answer (of a HEAD: the object's size); -1 unknown.
  int64_t content_length = -1;
};

class S3Transport {
 public:
  virtual ~S3Transport() = default;
  virtual S3Response Send(const S3Request& request) = 0;
};

}  // namespace publisher

#endif  // PUBLISHER_S3_TRANSPORT_H_
