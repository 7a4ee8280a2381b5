// EvaluatePac: runs a proxy auto-configuration (PAC) script's
// FindProxyForURL(url, host) with Debian's libpacparser, as CVMFS does; no
// JavaScript of our own.
//
// libpacparser keeps one JavaScript context per process. A call holds a
// process-wide lock from pacparser_init to pacparser_cleanup (an RAII
// session), so evaluations never overlap, whichever thread runs them.
//
// Thread safety: EvaluatePac may be called from any thread; calls are
// serialized.
#ifndef CLIENT_PAC_EVALUATOR_H_
#define CLIENT_PAC_EVALUATOR_H_

#include <string>
#include <vector>

#include "cvmfs/status.h"

namespace cvmfs::client {

struct PacQuery {
  std::string url;   // e.g. http://s1.example.org/cvmfs/repo/.cvmfspublished
  std::string host;  // its host name, e.g. s1.example.org
};

// What FindProxyForURL returned for each query, in order (e.g.
// "PROXY squid:3128; DIRECT"). InvalidArgument, with libpacparser's
// message, if the script does not parse or an evaluation fails.
Result<std::vector<std::string>> EvaluatePac(
    const std::string& script, const std::vector<PacQuery>& queries);

}  // namespace cvmfs::client

#endif  // CLIENT_PAC_EVALUATOR_H_
