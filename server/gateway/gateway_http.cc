#include "server/gateway/gateway_http.h"

#include <arpa/inet.h>
#include <microhttpd.h>
#include <netinet/in.h>

#include <algorithm>
#include <cctype>
#include <cstring>

namespace gateway {

namespace {

// One request being received.
struct Upload {
  std::string body;
  bool too_big = false;
};

MHD_Result CollectValue(void* cls, MHD_ValueKind, const char* key,
                        const char* value) {
  auto* map = static_cast<std::map<std::string, std::string>*>(cls);
  std::string name(key);
  for (char& ch : name) ch = static_cast<char>(std::tolower(ch));
  (*map)[name] = value ? value : "";
  return MHD_YES;
}

// A streamed reply: the pieces HttpReply::stream hands out, copied out as
// libmicrohttpd asks for bytes (on the connection's own thread, which may
// block in the stream).
struct Stream {
  std::function<std::optional<std::string>()> next;
  std::string pending;
  size_t offset = 0;
};

ssize_t ReadStream(void* cls, uint64_t, char* buf, size_t max) {
  auto* s = static_cast<Stream*>(cls);
  while (s->offset == s->pending.size()) {
    std::optional<std::string> piece = s->next();
    if (!piece) return MHD_CONTENT_READER_END_OF_STREAM;
    s->pending = std::move(*piece);
    s->offset = 0;
  }
  size_t n = std::min(max, s->pending.size() - s->offset);
  std::memcpy(buf, s->pending.data() + s->offset, n);
  s->offset += n;
  return static_cast<ssize_t>(n);
}

void FreeStream(void* cls) { delete static_cast<Stream*>(cls); }

MHD_Result Reply(MHD_Connection* connection, const HttpReply& reply) {
  MHD_Response* response =
      reply.stream
          ? MHD_create_response_from_callback(
                MHD_SIZE_UNKNOWN, 4096, &ReadStream,
                new Stream{reply.stream, "", 0}, &FreeStream)
          : MHD_create_response_from_buffer(
                reply.body.size(), const_cast<char*>(reply.body.data()),
                MHD_RESPMEM_MUST_COPY);
  if (!response) return MHD_NO;
  MHD_add_response_header(response, "Content-Type", reply.content_type.c_str());
  if (reply.stream)
    MHD_add_response_header(response, "Cache-Control", "no-cache");
  MHD_Result r = MHD_queue_response(connection, reply.status, response);
  MHD_destroy_response(response);
  return r;
}

MHD_Result OnRequest(void* cls, MHD_Connection* connection, const char* url,
                     const char* method, const char*, const char* upload_data,
                     size_t* upload_size, void** state) {
  if (*state == nullptr) {
    *state = new Upload();
    return MHD_YES;
  }
  auto* upload = static_cast<Upload*>(*state);
  if (*upload_size > 0) {
    if (upload->body.size() + *upload_size > kGatewayMaxBody) {
      upload->too_big = true;
    } else if (!upload->too_big) {
      upload->body.append(upload_data, *upload_size);
    }
    *upload_size = 0;
    return MHD_YES;
  }
  if (upload->too_big) {
    HttpReply too_big;
    too_big.status = 413;
    too_big.body = R"({"status":"error","reason":"request too large"})";
    return Reply(connection, too_big);
  }
  HttpRequest request;
  request.method = method;
  request.path = url;
  request.body = std::move(upload->body);
  MHD_get_connection_values(connection, MHD_HEADER_KIND, &CollectValue,
                            &request.headers);
  MHD_get_connection_values(connection, MHD_GET_ARGUMENT_KIND, &CollectValue,
                            &request.query);
  return Reply(connection, static_cast<GatewayService*>(cls)->Handle(request));
}

void OnCompleted(void*, MHD_Connection*, void** state,
                 MHD_RequestTerminationCode) {
  delete static_cast<Upload*>(*state);
  *state = nullptr;
}

}  // namespace

cvmfs::Result<std::unique_ptr<GatewayHttpServer>> GatewayHttpServer::Start(
    GatewayService* service, const std::string& address, uint16_t port) {
  sockaddr_in addr;
  std::memset(&addr, 0, sizeof(addr));
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (inet_pton(AF_INET, address.c_str(), &addr.sin_addr) != 1)
    return cvmfs::Status::InvalidArgument("not an IPv4 address: " + address);
  std::unique_ptr<GatewayHttpServer> server(new GatewayHttpServer());
  server->daemon_ = MHD_start_daemon(
      MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_THREAD_PER_CONNECTION |
          MHD_USE_ERROR_LOG,
      port, nullptr, nullptr, &OnRequest, service, MHD_OPTION_SOCK_ADDR,
      reinterpret_cast<const sockaddr*>(&addr), MHD_OPTION_NOTIFY_COMPLETED,
      &OnCompleted, nullptr, MHD_OPTION_CONNECTION_TIMEOUT, 600u,
      MHD_OPTION_END);
  if (!server->daemon_)
    return cvmfs::Status::Unavailable("cannot listen on " + address + ":" +
                                      std::to_string(port));
  const MHD_DaemonInfo* info =
      MHD_get_daemon_info(server->daemon_, MHD_DAEMON_INFO_BIND_PORT);
  server->port_ = info ? info->port : port;
  return server;
}

GatewayHttpServer::~GatewayHttpServer() {
  if (daemon_) MHD_stop_daemon(daemon_);
}

}  // namespace gateway
