#include "cvmfs/network/transfer_fault.h"

namespace cvmfs {

TransferFault ClassifyCurlCode(CURLcode code, bool direct) {
  const TransferFault transfer =
      direct ? TransferFault::kHostTransfer : TransferFault::kProxyTransfer;
  switch (code) {
    case CURLE_OK:
      return TransferFault::kNone;
    case CURLE_FILE_COULDNT_READ_FILE:  // file:// URL: no such object
      return TransferFault::kNotFound;
    case CURLE_COULDNT_RESOLVE_PROXY:
      return TransferFault::kProxyHttp;
    case CURLE_COULDNT_RESOLVE_HOST:
      return TransferFault::kHostHttp;
    case CURLE_WEIRD_SERVER_REPLY:  // not HTTP: whoever answered is broken
      return direct ? TransferFault::kHostHttp : TransferFault::kProxyHttp;
    case CURLE_COULDNT_CONNECT:     // a guess for proxies, as in CVMFS: the
    case CURLE_OPERATION_TIMEDOUT:  // host behind may be the one that is down
    case CURLE_PARTIAL_FILE:
    case CURLE_GOT_NOTHING:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
      return transfer;
    case CURLE_TOO_MANY_REDIRECTS:
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CACERT_BADFILE:
      return TransferFault::kHostTransfer;
    default:
      return TransferFault::kOther;
  }
}

TransferFault ClassifyHttpStatus(int http_code, bool proxy_error, bool direct) {
  if (http_code == 404) return TransferFault::kNotFound;
  if (proxy_error && !direct) return TransferFault::kProxyHttp;
  if (http_code == 429) return TransferFault::kHostTransfer;
  if (http_code / 100 == 5 || http_code == 400 || http_code / 100 == 3) {
    return TransferFault::kHostHttp;
  }
  return direct ? TransferFault::kHostHttp : TransferFault::kProxyHttp;
}

}  // namespace cvmfs
