// S3Transport: one HTTP request to an S3 endpoint, the seam between
// S3ObjectStore (what to ask, retries, listing) and libcurl (how to ask,
// signing). CurlS3Transport (s3_curl_transport.h) is the real one; unit
// tests pass a fake. Implementations are thread-safe.
#ifndef PUBLISHER_S3_TRANSPORT_H_
#define PUBLISHER_S3_TRANSPORT_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "cvmfs/object_store.h"
#include "cvmfs/status.h"

namespace publisher {

struct S3Request {
  enum class Method { kGet, kHead, kPut, kDelete };
  Method method = Method::kGet;
  std::string key;        // object key in the bucket, no leading '/'
  std::string query;      // already encoded, without '?' ("" for none)
  std::string_view body;  // PUT only; borrowed for the call
  // PUT the bytes of this local file instead of `body`: read in pieces as
  // they are sent (and hashed for the signature before), so a file of any
  // size is uploaded in bounded memory; opened again by every attempt.
  std::string body_file;
  // GET: the body of a 2xx answer is handed to `sink` in pieces instead of
  // being kept in S3Response::body; a non-ok status from the sink stops the
  // transfer. Borrowed for the call.
  const cvmfs::ObjectStore::Sink* sink = nullptr;
};

struct S3Response {
  // 0: no HTTP answer (connection refused, timeout, reset).
  long http_code = 0;  // NOLINT(runtime/int): libcurl's type
  std::string body;
  std::string error;  // the transport's message when http_code == 0
  // Content-Length of the answer (of a HEAD: the object's size); -1 unknown.
  int64_t content_length = -1;
  // Bytes handed to S3Request::sink (a retry cannot take them back).
  uint64_t streamed = 0;
  // A failure on this side, which no retry mends: the sink's status when it
  // stopped the transfer, or why the file to send could not be read.
  cvmfs::Status local_status;
};

class S3Transport {
 public:
  virtual ~S3Transport() = default;
  virtual S3Response Send(const S3Request& request) = 0;
};

}  // namespace publisher

#endif  // PUBLISHER_S3_TRANSPORT_H_
