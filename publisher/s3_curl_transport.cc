#include "publisher/s3_curl_transport.h"

#include <fcntl.h>
#include <openssl/evp.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <string>
#include <utility>

#include "cvmfs/file_util.h"

namespace publisher {

namespace {

// Where the answer's body goes: the request's sink for a 2xx answer when
// it has one, the response's body otherwise (an error document).
struct Download {
  CURL* curl;
  const cvmfs::ObjectStore::Sink* sink;
  S3Response* response;
};

size_t ReceiveBody(char* data, size_t size, size_t n, void* out) {
  auto* d = static_cast<Download*>(out);
  const size_t len = size * n;
  long code = 0;  // NOLINT(runtime/int): libcurl's type
  curl_easy_getinfo(d->curl, CURLINFO_RESPONSE_CODE, &code);
  if (d->sink == nullptr || code < 200 || code >= 300) {
    d->response->body.append(data, len);
    return len;
  }
  d->response->local_status = (*d->sink)(data, len);
  if (!d->response->local_status.ok()) return 0;  // stops the transfer
  d->response->streamed += len;
  return len;
}

// The bytes a PUT sends: borrowed memory or a file read as it goes.
struct UploadSource {
  std::string_view rest;
  int fd = -1;
};

size_t SendBody(char* buffer, size_t size, size_t n, void* in) {
  auto* src = static_cast<UploadSource*>(in);
  if (src->fd >= 0) {
    ssize_t got;
    do {
      got = ::read(src->fd, buffer, size * n);
    } while (got < 0 && errno == EINTR);
    return got < 0 ? CURL_READFUNC_ABORT : static_cast<size_t>(got);
  }
  size_t len = std::min(size * n, src->rest.size());
  src->rest.copy(buffer, len);
  src->rest.remove_prefix(len);
  return len;
}

struct EvpMdCtxFree {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

// The payload hash SigV4 signs: libcurl 7.88 hashes only POSTFIELDS and
// takes an empty payload's hash for a body from a read callback (which S3
// servers then refuse with 403), unless the request names the hash in
// x-amz-content-sha256 itself.
std::string HexOf(const unsigned char* md, unsigned int len) {
  static constexpr char kHex[] = "0123456789abcdef";
  std::string out;
  for (unsigned int i = 0; i < len; ++i) {
    out += kHex[md[i] >> 4];
    out += kHex[md[i] & 15];
  }
  return out;
}

std::string Sha256Hex(std::string_view data) {
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(data.data(), data.size(), md, &len, EVP_sha256(), nullptr);
  return HexOf(md, len);
}

// A file's is taken in blocks from `fd`, which is then rewound for the
// upload.
cvmfs::Result<std::string> Sha256HexOfFile(int fd, const std::string& what) {
  std::unique_ptr<EVP_MD_CTX, EvpMdCtxFree> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_sha256(), nullptr) != 1)
    return cvmfs::Status::IoError("SHA-256: no digest context");
  CVMFS_RETURN_IF_ERROR(cvmfs::ForEachBlock(
      fd, 256 << 10, what, [&](const char* data, size_t size) {
        EVP_DigestUpdate(ctx.get(), data, size);
        return cvmfs::Status::Ok();
      }));
  unsigned char md[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), md, &len);
  if (::lseek(fd, 0, SEEK_SET) != 0)
    return cvmfs::Status::FromErrno(errno, "rewind " + what);
  return HexOf(md, len);
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
  // A file to upload: opened, sized and hashed before a connection is taken.
  UploadSource source{request.body};
  cvmfs::UniqueFd file;
  std::string payload_sha256;
  curl_off_t upload_size = static_cast<curl_off_t>(request.body.size());
  if (!request.body_file.empty()) {
    file = cvmfs::UniqueFd(
        ::open(request.body_file.c_str(), O_RDONLY | O_CLOEXEC));
    struct stat info;
    if (!file.valid() || ::fstat(file.get(), &info) != 0) {
      response.local_status =
          cvmfs::Status::FromErrno(errno, "open " + request.body_file);
      return response;
    }
    auto hash = Sha256HexOfFile(file.get(), request.body_file);
    if (!hash.ok()) {
      response.local_status = hash.status();
      return response;
    }
    payload_sha256 = std::move(*hash);
    source.fd = file.get();
    upload_size = static_cast<curl_off_t>(info.st_size);
  } else {
    payload_sha256 = Sha256Hex(request.body);
  }
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
  Download download{curl, request.sink, &response};
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, ReceiveBody);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &download);
  // libcurl sends "Expect: 100-continue" before a PUT's body. It must not
  // be removed with an "Expect:" header: libcurl 7.88 signs that empty
  // header as "expect" and then leaves it out of the request, so the
  // server computes another signature (403). Not waiting for the 100
  // saves the round trip all the same.
  curl_easy_setopt(curl, CURLOPT_EXPECT_100_TIMEOUT_MS, 0L);
  const std::string payload_hash = "x-amz-content-sha256: " + payload_sha256;
  cvmfs::CurlSlistPtr headers(curl_slist_append(nullptr, payload_hash.c_str()));
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers.get());
  switch (request.method) {
    case S3Request::Method::kGet:
      break;
    case S3Request::Method::kHead:
      curl_easy_setopt(curl, CURLOPT_NOBODY, 1L);
      break;
    case S3Request::Method::kPut:
      curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
      curl_easy_setopt(curl, CURLOPT_READFUNCTION, SendBody);
      curl_easy_setopt(curl, CURLOPT_READDATA, &source);
      curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, upload_size);
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
