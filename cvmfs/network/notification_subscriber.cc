#include "cvmfs/network/notification_subscriber.h"

#include <curl/curl.h>

#include <algorithm>
#include <utility>
#include <vector>

#include "cvmfs/network/curl_handles.h"
#include "cvmfs/network/event_stream.h"

namespace cvmfs {

namespace {

struct Transfer {
  CURL* curl = nullptr;
  EventStreamParser parser;
  std::function<void(const std::string&)> on_event;
  std::function<bool()> stopping;
  bool* accepted = nullptr;
  long status = 0;  // NOLINT(runtime/int): libcurl's type
  Status error;
};

size_t OnData(char* data, size_t size, size_t count, void* user) {
  auto* t = static_cast<Transfer*>(user);
  const size_t n = size * count;
  if (t->status == 0) {
    curl_easy_getinfo(t->curl, CURLINFO_RESPONSE_CODE, &t->status);
    if (t->status != 200) return 0;  // abort: not a subscription
    *t->accepted = true;
  }
  std::vector<std::string> events;
  Status st = t->parser.Feed(std::string_view(data, n), &events);
  for (const std::string& e : events) t->on_event(e);
  if (!st.ok()) {
    t->error = st;
    return 0;
  }
  return t->stopping() ? 0 : n;
}

// Called about once a second while the stream is idle: the way to stop.
int OnProgress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  return static_cast<Transfer*>(user)->stopping() ? 1 : 0;
}

}  // namespace

NotificationSubscriber::NotificationSubscriber(
    NotificationSubscriberOptions options, MessageHandler on_message, LogFn log)
    : options_(std::move(options)),
      on_message_(std::move(on_message)),
      log_(std::move(log)) {}

NotificationSubscriber::~NotificationSubscriber() { Stop(); }

void NotificationSubscriber::Start() {
  if (thread_.joinable()) return;
  stop_flag_ = false;
  thread_ = std::thread([this] { Loop(); });
}

void NotificationSubscriber::Stop() {
  {
    cvmfs::MutexLock lock(&mu_);
    stop_flag_ = true;
  }
  cv_.notify_all();
  if (thread_.joinable()) thread_.join();
}

NotificationSubscriber::Counters NotificationSubscriber::counters() const {
  Counters c;
  c.connections = connections_.load();
  c.failures = failures_.load();
  c.messages = messages_.load();
  c.malformed = malformed_.load();
  return c;
}

void NotificationSubscriber::Event(const std::string& text) {
  auto message = ParseActivity(text);
  if (!message.ok()) {
    ++malformed_;
    log_("notification ignored: " + message.status().message());
    return;
  }
  if (message->repository != options_.fqrn) {
    ++malformed_;
    log_("notification ignored: it names repository " + message->repository +
         ", not " + options_.fqrn);
    return;
  }
  ++messages_;
  on_message_(*message);
}

Status NotificationSubscriber::SubscribeOnce(bool* accepted) {
  *accepted = false;
  CurlEasyPtr curl(curl_easy_init());
  if (!curl) return Status::IoError("cannot create a curl handle");
  const std::string url = NotificationUrl(options_.server, "subscribe");
  const std::string body = SubscriptionRequest(options_.fqrn);
  CurlSlistPtr headers(
      curl_slist_append(nullptr, "Content-Type: application/json"));
  Transfer t;
  t.curl = curl.get();
  t.on_event = [this](const std::string& e) { Event(e); };
  t.stopping = [this] { return stopping(); };
  t.accepted = accepted;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, "GET");  // as CVMFS: GET + body
  curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                   static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_USERAGENT, options_.user_agent.c_str());
  curl_easy_setopt(c, CURLOPT_PROXY, "");  // straight to the server
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS,
                   static_cast<long>(  // NOLINT(runtime/int)
                       std::chrono::duration_cast<std::chrono::milliseconds>(
                           options_.connect_timeout)
                           .count()));
  curl_easy_setopt(c, CURLOPT_TCP_KEEPALIVE, 1L);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, OnData);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &t);
  curl_easy_setopt(c, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(c, CURLOPT_XFERINFOFUNCTION, OnProgress);
  curl_easy_setopt(c, CURLOPT_XFERINFODATA, &t);
  const CURLcode rc = curl_easy_perform(c);
  if (stopping()) return Status::Ok();
  if (!t.error.ok()) return t.error;
  if (t.status == 0) curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &t.status);
  if (t.status != 0 && t.status != 200)
    return Status::Unavailable(url + " answered HTTP " +
                               std::to_string(t.status));
  if (rc != CURLE_OK)
    return Status::Unavailable(url + ": " + curl_easy_strerror(rc));
  if (!*accepted)
    return Status::Unavailable(url + " answered 200 without a stream");
  return Status::Ok();  // the server ended the stream (its timeout)
}

void NotificationSubscriber::Loop() {
  std::chrono::milliseconds backoff = options_.initial_backoff;
  while (!stopping()) {
    bool accepted = false;
    Status st = SubscribeOnce(&accepted);
    if (accepted) {
      ++connections_;
      backoff = options_.initial_backoff;
    }
    if (stopping()) break;
    ++failures_;
    log_("notification subscription to " + options_.server + " for " +
         options_.fqrn + (st.ok() ? " ended" : " failed: " + st.message()) +
         "; reconnecting in " + std::to_string(backoff.count()) + " ms");
    {
      cvmfs::MutexLock lock(&mu_);
      const auto deadline = std::chrono::steady_clock::now() + backoff;
      while (!stopping() &&
             lock.WaitUntil(&cv_, deadline) != std::cv_status::timeout) {
      }
    }
    if (!accepted) backoff = std::min(backoff * 2, options_.max_backoff);
  }
}

}  // namespace cvmfs
