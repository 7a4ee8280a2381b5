// HttpFetcher's I/O thread: one curl multi handle, the transfers in flight,
// the retry timers and the pool of easy handles. Internal to cvmfs/network.
//
// Life of a Transfer (one Fetch call):
//
//   Submit ──► incoming_ ──► Admit ──► waiting_ ──► StartAttempt ──► in flight
//                              ▲   (demand first;    (multi handle)      │
//                              │    at most limit_       done ──────────┘
//                              │    in flight)            ▼
//                  retry timer ◄── Decide: retry / failover / Finish
//                  (backoff)                               │
//                                                          ▼
//                                     result handed to the waiting caller
//
// Admission: at most limit_.limit() attempts are in flight (each holds one
// connection); a background request starts only while fewer than half of
// the limit are background ones. Every finished attempt tells limit_ how
// its connect and first byte went (connection_limit.h). A restarted
// attempt (retry, failover) goes to the front of its queue.
//
// A large body (Content-Length above kWakeBody) goes from the I/O thread to
// the caller through Transfer::body: OnBody copies what curl delivers into
// it, and the caller (HttpFetcher::Fetch, waiting for the transfer anyway)
// takes it and writes it to the sink on its own thread. At kMaxQueuedBody
// bytes not yet taken OnBody pauses the transfer (CURL_WRITEFUNC_PAUSE,
// curl keeps the data); the caller, having taken them, asks for it to go on
// (Resume). So the sinks' work on large bodies (the client's inflate, hash
// and write) runs on as many threads as callers wait, and a slow sink holds
// up only its own transfer. A small body is written to the sink by OnBody
// itself, as it arrives: handing it over would cost more than the work (a
// cold tar of 2,078 files at 10 ms was 20% slower so); so is a local file
// (file://), which curl cannot pause. Once a transfer handed a body over,
// its later attempts do too: the sink is then the caller's, and never used
// by two threads at once.
//
// Everything but incoming_/resumed_/stopping_ and the Transfer fields under
// Transfer::mu is touched by the I/O thread only, so it needs no lock. The
// Transfer lives on the caller's stack; the I/O thread stops touching it
// the moment it sets `done` (under Transfer::mu).
#ifndef CVMFS_NETWORK_HTTP_IO_LOOP_H_
#define CVMFS_NETWORK_HTTP_IO_LOOP_H_

#include <curl/curl.h>

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "cvmfs/mutex.h"
#include "cvmfs/network/buffer_pool.h"
#include "cvmfs/network/connection_limit.h"
#include "cvmfs/network/curl_handles.h"
#include "cvmfs/network/http_fetcher.h"
#include "cvmfs/network/transfer_fault.h"

namespace cvmfs {

struct HttpFetcher::Transfer {
  Transfer(const DownloadRequest& r, DownloadSink* s) : request(r), sink(s) {}

  const DownloadRequest& request;
  DownloadSink* const sink;

  // I/O thread only. Per request (over all attempts):
  size_t used_hosts = 1;    // hosts tried, the current one included
  size_t used_proxies = 1;  // proxies tried with the current host
  int retries = 0;
  int backoff_ms = 0;
  // Per attempt:
  Route route;
  std::chrono::steady_clock::time_point started;
  cvmfs::Clock::TimePoint admitted;  // by the fetcher's clock, for limit_
  int admitted_in_flight = 0;        // transfers in flight then, with it
  std::string url;
  CURL* curl = nullptr;  // borrowed from the pool while in flight
  int http_code = 0;
  bool proxy_error = false;       // X-Squid-Error / Proxy-Status error
  bool response_refused = false;  // non-2xx: the body is not for the sink
  uint64_t error_body_bytes = 0;  // of a refused response, dropped
  uint64_t bytes = 0;
  bool handed_off = false;  // the body goes to the caller (set at the end of
                            // a 2xx header; sticks for later attempts)
  char error_buffer[CURL_ERROR_SIZE] = {};

  // Between the I/O thread and the caller, guarded by mu. A leaf lock:
  // nothing else is taken while it is held (IoLoop::mu_ is not). The caller
  // waits on cv for IoLoop::kWakeBody bytes of body, resets or done.
  Mutex mu;
  std::condition_variable cv;
  // Received, not yet given to the sink (a buffer of `bodies`, taken at
  // the first byte handed over).
  std::string body GUARDED_BY(mu);
  BufferPool* bodies = nullptr;  // borrowed
  // Sink Reset() calls owed before `body` (retries).
  int resets GUARDED_BY(mu) = 0;
  // OnBody paused the transfer: `body` is full.
  bool paused GUARDED_BY(mu) = false;
  // The sink's error (set by the caller): final.
  Status sink_status GUARDED_BY(mu);
  // The I/O thread is finished with it.
  bool done GUARDED_BY(mu) = false;
  DownloadResult result GUARDED_BY(mu);
};

class HttpFetcher::IoLoop {
 public:
  explicit IoLoop(HttpFetcher* owner);
  ~IoLoop();  // stops the thread; pending transfers fail with Unavailable
  IoLoop(const IoLoop&) = delete;
  IoLoop& operator=(const IoLoop&) = delete;

  Status Start();
  // Fails what is pending with Unavailable and joins the thread; idempotent.
  void Stop();
  // Hands `t` to the I/O thread; false if the loop is stopping.
  bool Submit(Transfer* t);
  // The caller took the body of `t`, which OnBody had paused: go on.
  void Resume(Transfer* t);

  // Body bytes a transfer holds for its caller at most before it pauses.
  static constexpr size_t kMaxQueuedBody = 512 * 1024;
  // Bodies larger than this go through the caller; the caller is woken for
  // this much body, or at the end.
  static constexpr size_t kWakeBody = 64 * 1024;

 private:
  using Clock = std::chrono::steady_clock;

  void Run();
  bool TakeIncoming(std::vector<Transfer*>* fresh,
                    std::vector<Transfer*>* resumed) EXCLUDES(mu_);
  void Unpause(Transfer* t);
  // Queues `t` for a connection (in front after a failed attempt) and
  // starts what the limit allows.
  void Admit(Transfer* t, bool front);
  void StartWaiting();
  void StartAttempt(Transfer* t);
  // Tells limit_ how the finished attempt on `curl` went.
  void RecordConnection(const Transfer& t, CURL* curl, CURLcode code,
                        bool in_use);
  CURLcode Configure(Transfer* t, CURL* curl);
  void ReapFinished();
  void OnDone(CURL* curl, CURLcode code);
  void Decide(Transfer* t, TransferFault fault, const std::string& what);
  // `why` (what failed) goes to HttpFetcherOptions::on_failover when the
  // global route switches.
  bool TryFailover(Transfer* t, TransferFault fault, const std::string& why);
  void ScheduleRetry(Transfer* t);
  void StartDueRetries();
  void Restart(Transfer* t);
  int PollTimeoutMs() const;
  void Finish(Transfer* t, Status status);
  void FailAll();
  CURL* AcquireHandle();
  void ReleaseHandle(CURL* curl);
  std::string Describe(const Transfer& t, CURLcode code) const;
  // The attempt ran out of the metadata deadline (not the low-speed or
  // connect timeout, which curl reports with the same code).
  bool PastDeadline(const Transfer& t, CURLcode code) const;

  static size_t OnHeader(char* data, size_t size, size_t n, void* arg);
  static size_t OnBody(char* data, size_t size, size_t n, void* arg);

  HttpFetcher* const owner_;
  CurlMultiPtr multi_;  // declared first: outlives the easy handles
  CurlSlistPtr headers_;
  CurlSlistPtr headers_no_cache_;
  std::thread thread_;

  // Guards incoming_, resumed_, stopping_. Lock order: taken alone (never
  // with Transfer::mu or FailoverState's), never held while calling curl or
  // a sink.
  Mutex mu_;
  std::vector<Transfer*> incoming_ GUARDED_BY(mu_);
  // May name transfers already finished.
  std::vector<Transfer*> resumed_ GUARDED_BY(mu_);
  bool stopping_ GUARDED_BY(mu_) = false;

  // I/O thread only.
  std::vector<CurlEasyPtr> idle_handles_;
  std::set<Transfer*> in_flight_;
  int background_in_flight_ = 0;
  std::deque<Transfer*> waiting_demand_, waiting_background_;
  ConnectionLimit limit_;
  std::multimap<Clock::time_point, Transfer*> retry_timers_;
  std::mt19937 prng_;  // backoff jitter
};

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_HTTP_IO_LOOP_H_
