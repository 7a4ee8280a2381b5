// CurlS3Transport: S3 requests over libcurl, signed by libcurl's own AWS
// Signature V4 (CURLOPT_AWS_SIGV4 "aws:amz:<region>:s3") with the access
// and secret key of the S3Config.
//
// At most config.max_connections requests run at once (CVMFS_S3_MAX_NUMBER_
// OF_PARALLEL_CONNECTIONS); callers beyond that wait. Finished easy handles
// are kept for the next request, so their connections are reused.
// Thread-safe.
#ifndef PUBLISHER_S3_CURL_TRANSPORT_H_
#define PUBLISHER_S3_CURL_TRANSPORT_H_

#include <condition_variable>
#include <vector>

#include "cvmfs/mutex.h"
#include "cvmfs/network/curl_handles.h"
#include "publisher/s3_config.h"
#include "publisher/s3_transport.h"

namespace publisher {

class CurlS3Transport : public S3Transport {
 public:
  explicit CurlS3Transport(S3Config config);
  S3Response Send(const S3Request& request) override;

 private:
  cvmfs::CurlEasyPtr Acquire();
  void Release(cvmfs::CurlEasyPtr handle);

  const S3Config config_;
  const std::string sigv4_;  // "aws:amz:<region>:s3"
  const std::string userpwd_;
  cvmfs::Mutex mu_;  // guards in_use_, idle_; leaf lock
  std::condition_variable released_;
  unsigned in_use_ GUARDED_BY(mu_) = 0;
  std::vector<cvmfs::CurlEasyPtr> idle_ GUARDED_BY(mu_);
};

}  // namespace publisher

#endif  // PUBLISHER_S3_CURL_TRANSPORT_H_
