#include "publisher/s3_curl_transport.h"

#include <openssl/evp.h>

#include <algorithm>
#include <string>
#include <utility>

namespace publisher {

namespace {

size_t AppendBody(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

struct UploadSource {
  std::string_view rest;
};

size_t ReadBody(char* buffer, size_t size, size_t n, void* in) {
  auto* src = static_cast<UploadSource*>(in);
  size_t len = std::min(size * n, src->rest.size());
  src->rest.copy(buffer, len);
  src->rest.remove_prefix(len);
  return len;
}

// The payload hash SigV4 signs: libcurl 7.88 hashes only POSTFIELDS and
// takes an empty payload's hash for a body from a read callback (which S3
// servers then refuse with 403), unless the request names the hash in
// x-amz-content-sha256 itself.
std::string Sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

}  // namespace

CurlS3Transport::CurlS3Transport(S3Config config)
    : config_(std::move(config)),
      sigv4_("aws:amz:" + config_.region + ":s3"),
      userpwd_(config_.access_key + ":" + config_.secret_key) {}

cvmfs::CurlEasyPtr CurlS3Transport::Acquire() {
  cvmfs::MutexLock lock(&mu_);
  while (in_use_ >= config_.max_connections) lock.Wait(&released_);
  ++in_use_;
  if (!idle_.empty()) {
    cvmfs::CurlEasyPtr handle = std::move(idle_.back());
    idle_.pop_back();
    return handle;
  }
  return cvmfs::CurlEasyPtr(curl_easy_init());
}

void CurlS3Transport::Release(cvmfs::CurlEasyPtr handle) {
  {
    cvmfs::MutexLock lock(&mu_);
    --in_use_;
    if (handle) idle_.push_back(std::move(handle));
  }
  released_.notify_one();
}

S3Response CurlS3Transport::Send(const S3Request& request) {
  S3Response response;
  cvmfs::CurlEasyPtr handle = Acquire();
  CURL* curl = handle.get();
  if (curl == nullptr) {
    response.error = "curl_easy_init failed";
    Release(nullptr);
    return response;
  }
  curl_easy_reset(curl);
  std::string url = config_.BucketUrl() + "/" + request.key;
  if (!request.query.empty()) url += "?" + request.query;
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_AWS_SIGV4, sigv4_.c_str());
  curl_easy_setopt(curl, CURLOPT_USERPWD, userpwd_.c_str());
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT,
                   static_cast<long>(config_.timeout_sec));
  curl_easy_setopt(curl, CURLOPT_PROXY, config_.proxy.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, AppendBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &response.body);
  // libcurl sends "Expect: 100-continue" before a PUT's body. It must not
  // be removed with an "Expect:" header: libcurl 7.88 signs that empty
  // header as "expect" and then leaves it out of the request, so the
  // server computes another signature (403). Not waiting for the 100
  // saves the round trip all the same.
  curl_easy_setopt(curl, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
  const std::string payload_hash =
      "x-amz-content-sha256: " + Sha256Hex(request.body);
  cvmfs::CurlSlistPtr headers(curl_slist_append(nullptr, payload_hash.c_str()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  UploadSource source{request.body};
  switch (request.method) {
    case S3Request::Method::kGet:
      break;
    case S3Request::Method::kHead:
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
      break;
    case S3Request::Method::kPut:
      curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
      curl_easy_setopt(curl, CURLOPT_READDATA, &source);
      curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE,
                       static_cast<curl_off_t>(request.body.size()));
      break;
    case S3Request::Method::kDelete:
      curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "DELETE");
      break;
  }
  CURLcode rc = curl_easy_perform(curl);
  if (rc == CURLE_OK) {
    curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &response.http_code);
    curl_off_t length = -1;
    if (curl_easy_getinfo(curl, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &length) ==
        CURLE_OK)
      response.content_length = length;
  } else {
    response.error = std::string(curl_easy_strerror(rc)) + " (" + url + ")";
  }
  // Detach the borrowed buffers before the handle is pooled.
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, nullptr);
  Release(std::move(handle));
  return response;
}

}  // namespace publisher
