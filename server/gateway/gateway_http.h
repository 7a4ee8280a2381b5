// GatewayHttpServer: serves a GatewayService over HTTP with libmicrohttpd,
// one thread per connection (a commit may take seconds; other publishers'
// requests go on meanwhile). Request bodies are read whole, up to
// kGatewayMaxBody (an object pack of CVMFS's default 200 MiB plus its
// message); a larger body is answered 413.
//
// Thread safety: started and destroyed by one thread; the destructor stops
// the server and waits for the requests being served.
#ifndef SERVER_GATEWAY_GATEWAY_HTTP_H_
#define SERVER_GATEWAY_GATEWAY_HTTP_H_

#include <cstdint>
#include <memory>
#include <string>

#include "cvmfs/status.h"
#include "server/gateway/gateway_service.h"

struct MHD_Daemon;

namespace gateway {

inline constexpr uint64_t kGatewayMaxBody = 256ull * 1024 * 1024;

class GatewayHttpServer {
 public:
  // Listens on `address` (IPv4, e.g. "0.0.0.0" or "127.0.0.1") and `port`
  // (0: any free port, see port()). `service` is borrowed and outlives the
  // server.
  static cvmfs::Result<std::unique_ptr<GatewayHttpServer>> Start(
      GatewayService* service, const std::string& address, uint16_t port);
  ~GatewayHttpServer();
  GatewayHttpServer(const GatewayHttpServer&) = delete;
  GatewayHttpServer& operator=(const GatewayHttpServer&) = delete;

  uint16_t port() const { return port_; }

 private:
  GatewayHttpServer() = default;
  MHD_Daemon* daemon_ = nullptr;
  uint16_t port_ = 0;
};

}  // namespace gateway

#endif  // SERVER_GATEWAY_GATEWAY_HTTP_H_
