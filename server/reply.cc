#include "server/reply.h"

#include <cstdio>

#include "server/byte_range.h"
#include "server/cache_policy.h"

namespace server {
namespace {

using cvmfs::Status;

Reply TextReply(unsigned status, const std::string& text) {
  Reply reply;
  reply.status = status;
  reply.body_bytes = text.size();
  reply.response.reset(MHD_create_response_from_buffer(
      text.size(), const_cast<char*>(text.data()), MHD_RESPMEM_MUST_COPY));
  if (reply.response)
    MHD_add_response_header(reply.response.get(), MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/plain");
  return reply;
}

Reply Unsatisfiable(const RangeDecision& range, uint64_t size) {
  Reply reply =
      TextReply(MHD_HTTP_RANGE_NOT_SATISFIABLE, "416 Range Not Satisfiable\n");
  if (reply.response)
    MHD_add_response_header(reply.response.get(), MHD_HTTP_HEADER_CONTENT_RANGE,
                            ContentRangeValue(range, size).c_str());
  return reply;
}

void AddCacheHeaders(MHD_Response* r, std::string_view path) {
  CachePolicy policy = CachePolicyFor(path);
  std::string content_type(policy.content_type);
  std::string cache_control =
      "max-age=" + std::to_string(policy.max_age_seconds);
  std::string expires = HttpDate(::time(nullptr) + policy.max_age_seconds);
  MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE,
                          content_type.c_str());
  MHD_add_response_header(r, MHD_HTTP_HEADER_CACHE_CONTROL,
                          cache_control.c_str());
  MHD_add_response_header(r, MHD_HTTP_HEADER_EXPIRES, expires.c_str());
  MHD_add_response_header(r, MHD_HTTP_HEADER_ACCEPT_RANGES, "bytes");
}

// A range is honoured only without If-Range: we send no validators, so a
// client cannot hold one that matches (RFC 9110 13.1.5).
RangeDecision RangeOf(MHD_Connection* c, uint64_t size) {
  if (MHD_lookup_connection_value(c, MHD_HEADER_KIND,
                                  MHD_HTTP_HEADER_IF_RANGE) != nullptr)
    return RangeDecision{};
  const char* range =
      MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_RANGE);
  return DecideRange(range == nullptr ? "" : range, size);
}

}  // namespace

std::string HttpDate(time_t t) {
  static constexpr const char* kDays[] = {"Sun", "Mon", "Tue", "Wed",
                                          "Thu", "Fri", "Sat"};
  static constexpr const char* kMonths[] = {"Jan", "Feb", "Mar", "Apr",
                                            "May", "Jun", "Jul", "Aug",
                                            "Sep", "Oct", "Nov", "Dec"};
  struct tm tm;
  gmtime_r(&t, &tm);
  char buf[40];
  std::snprintf(buf, sizeof(buf), "%s, %02d %s %04d %02d:%02d:%02d GMT",
                kDays[tm.tm_wday], tm.tm_mday, kMonths[tm.tm_mon],
                tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

Reply ErrorReply(const Status& st) {
  switch (st.code()) {
    case Status::Code::kNotFound:
      return TextReply(MHD_HTTP_NOT_FOUND, "404 Not Found\n");
    case Status::Code::kPermission:
      return TextReply(MHD_HTTP_FORBIDDEN, "403 Forbidden\n");
    case Status::Code::kInvalidArgument:
      return TextReply(MHD_HTTP_BAD_REQUEST, "400 Bad Request\n");
    default:
      std::fprintf(stderr, "cvmfs_server serve: %s\n", st.ToString().c_str());
      return TextReply(MHD_HTTP_INTERNAL_SERVER_ERROR,
                       "500 Internal Server Error\n");
  }
}

Reply MetricsReply(const std::string& page) {
  Reply reply = TextReply(MHD_HTTP_OK, page);
  if (reply.response) {
    MHD_del_response_header(reply.response.get(), MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/plain");
    MHD_add_response_header(reply.response.get(), MHD_HTTP_HEADER_CONTENT_TYPE,
                            "text/plain; version=0.0.4; charset=utf-8");
    MHD_add_response_header(reply.response.get(), MHD_HTTP_HEADER_CACHE_CONTROL,
                            "no-store");
  }
  return reply;
}

Reply GeoReply(unsigned status, const std::string& body, int max_age_s) {
  Reply reply = TextReply(status, body);
  if (reply.response)
    MHD_add_response_header(reply.response.get(), MHD_HTTP_HEADER_CACHE_CONTROL,
                            ("max-age=" + std::to_string(max_age_s)).c_str());
  return reply;
}

Reply MethodNotAllowed() {
  Reply reply =
      TextReply(MHD_HTTP_METHOD_NOT_ALLOWED, "405 Method Not Allowed\n");
  if (reply.response)
    MHD_add_response_header(reply.response.get(), MHD_HTTP_HEADER_ALLOW,
                            "GET, HEAD");
  return reply;
}

Reply FileReply(MHD_Connection* c, std::string_view path, OpenedFile file) {
  RangeDecision range = RangeOf(c, file.size);
  if (range.kind == RangeDecision::Kind::kUnsatisfiable)
    return Unsatisfiable(range, file.size);
  bool partial = range.kind == RangeDecision::Kind::kPartial;
  Reply reply;
  reply.status = partial ? MHD_HTTP_PARTIAL_CONTENT : MHD_HTTP_OK;
  reply.body_bytes = partial ? range.length() : file.size;
  uint64_t offset = partial ? range.first : 0;
  if (reply.body_bytes == 0) {  // nothing to read: no descriptor needed
    reply.response.reset(
        MHD_create_response_from_buffer(0, nullptr, MHD_RESPMEM_PERSISTENT));
  } else {
    reply.response.reset(MHD_create_response_from_fd_at_offset64(
        reply.body_bytes, file.fd.get(), offset));
    if (reply.response) file.fd.Release();  // now MHD's, closed with it
  }
  if (!reply.response)
    return ErrorReply(Status::IoError("cannot create a response"));
  AddCacheHeaders(reply.response.get(), path);
  if (partial)
    MHD_add_response_header(reply.response.get(), MHD_HTTP_HEADER_CONTENT_RANGE,
                            ContentRangeValue(range, file.size).c_str());
  return reply;
}

}  // namespace server
