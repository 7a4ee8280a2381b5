#include "publisher/http_object_store.h"

#include <curl/curl.h>

#include <memory>

namespace publisher {

namespace {

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};

size_t Append(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

HttpObjectStore::HttpObjectStore(std::string base_url,
                                 std::string read_only_reason)
    : base_url_(std::move(base_url)),
      read_only_reason_(std::move(read_only_reason)) {
  while (!base_url_.empty() && base_url_.back() == '/') base_url_.pop_back();
}

cvmfs::Status HttpObjectStore::Fetch(const std::string& name, std::string* body,
                                     uint64_t* length) {
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return cvmfs::Status::IoError("curl_easy_init failed");
  const std::string url = base_url_ + "/" + name;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT, 300L);
  std::string ignored;
  if (body) {
    curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Append);
    curl_easy_setopt(c, CURLOPT_WRITEDATA, body);
  } else {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  }
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK)
    return cvmfs::Status::Unavailable(url + ": " + curl_easy_strerror(rc));
  long code = 0;  // NOLINT(runtime/int): libcurl's type
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &code);
  if (code == 404) return cvmfs::Status::NotFound(url + ": not found");
  if (code != 200)
    return cvmfs::Status::IoError(url + ": HTTP " + std::to_string(code));
  if (length) {
    curl_off_t n = -1;
    curl_easy_getinfo(c, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, &n);
    if (n < 0) return cvmfs::Status::IoError(url + ": no Content-Length");
    *length = static_cast<uint64_t>(n);
  }
  return cvmfs::Status::Ok();
}

bool HttpObjectStore::Exists(const std::string& name) {
  return Fetch(name, nullptr, nullptr).ok();
}

cvmfs::Result<std::string> HttpObjectStore::Get(const std::string& name) {
  std::string body;
  CVMFS_RETURN_IF_ERROR(Fetch(name, &body, nullptr));
  return body;
}

cvmfs::Result<uint64_t> HttpObjectStore::Size(const std::string& name) {
  uint64_t n = 0;
  CVMFS_RETURN_IF_ERROR(Fetch(name, nullptr, &n));
  return n;
}

cvmfs::Status HttpObjectStore::Put(const std::string& name, std::string_view) {
  return cvmfs::Status::NotSupported("cannot write " + name + ": " +
                                     read_only_reason_);
}

cvmfs::Status HttpObjectStore::Remove(const std::string& name) {
  return cvmfs::Status::NotSupported("cannot remove " + name + ": " +
                                     read_only_reason_);
}

cvmfs::Result<std::vector<std::string>> HttpObjectStore::ListObjects() {
  return cvmfs::Status::NotSupported("cannot list the objects of " + base_url_ +
                                     ": " + read_only_reason_);
}

}  // namespace publisher
