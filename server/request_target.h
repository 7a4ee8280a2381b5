// The path of an HTTP request target (RFC 9112 section 3.2), as the
// embedded server (http_server.h) looks files up by it.
//
//   origin-form     /cvmfs/FQRN/.cvmfspublished         -> itself
//   absolute-form   http://host:port/cvmfs/FQRN/x        -> /cvmfs/FQRN/x
//                   http://host:port                     -> /
//   anything else   *, host:port (authority-form), ...   -> "" (not a path)
//
// Absolute-form is what a request to a proxy carries and what a server must
// accept (RFC 9112 3.2.2); CVMFS clients configured with a server that is
// itself a proxy, and some other clients, send it. The scheme is matched
// case-insensitively (http or https); the authority is not checked: the
// server answers by path whatever host name the client used. The query has
// already been split off by libmicrohttpd.
//
// Thread safety: a pure function.
#ifndef SERVER_REQUEST_TARGET_H_
#define SERVER_REQUEST_TARGET_H_

#include <string_view>

namespace server {

// A view into `target`, or "/" for an absolute-form target without a path.
std::string_view RequestPath(std::string_view target);

}  // namespace server

#endif  // SERVER_REQUEST_TARGET_H_
