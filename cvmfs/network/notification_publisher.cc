#include "cvmfs/network/notification_publisher.h"

#include <curl/curl.h>

#include "cvmfs/network/curl_handles.h"

namespace cvmfs {

namespace {

size_t Collect(char* data, size_t size, size_t count, void* user) {
  auto* body = static_cast<std::string*>(user);
  if (body->size() < 64 * 1024) body->append(data, size * count);
  return size * count;
}

}  // namespace

Status PublishNotification(const std::string& server,
                           const ActivityMessage& message,
                           std::chrono::seconds timeout) {
  CurlEasyPtr curl(curl_easy_init());
  if (!curl) return Status::IoError("cannot create a curl handle");
  const std::string url = NotificationUrl(server, "publish");
  const std::string body = SerializeActivity(message);
  CurlSlistPtr headers(
      curl_slist_append(nullptr, "Content-Type: application/json"));
  std::string answer;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_PROXY, "");
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_TIMEOUT,
                   static_cast<long>(timeout.count()));  // NOLINT
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, Collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  const CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK)
    return Status::Unavailable(url + ": " + curl_easy_strerror(rc));
  long status = 0;  // NOLINT(runtime/int): libcurl's type
  curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
  if (status != 200 || answer.find("\"ok\"") == std::string::npos)
    return Status::Unavailable(url + " answered HTTP " +
                               std::to_string(status) + ": " + answer);
  return Status::Ok();
}

}  // namespace cvmfs
