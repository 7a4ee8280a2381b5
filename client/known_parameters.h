// The names of the CVMFS client parameters (doc/client.md, "Configuration", and
// the CVMFS parameter appendix), plus the ones this implementation adds, so
// that a typo such as CVMFS_QUOTA_LIMT is reported by name instead of being
// silently ignored, as CVMFS does.
//
// Only names starting with CVMFS_ are checked: other names in the files are
// legitimately used as variables for variant symlinks and by site scripts.
//
// Thread safety: stateless.
#ifndef CLIENT_KNOWN_PARAMETERS_H_
#define CLIENT_KNOWN_PARAMETERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/config/options_manager.h"

namespace cvmfs {

// True for a parameter CVMFS or this client understands, including the
// tiered-cache family CVMFS_CACHE_<instance>_<setting>.
bool IsKnownClientParameter(std::string_view name);

// One warning per unknown CVMFS_* option, naming it, its source and, when a
// known name is within two edits, the likely intended one:
//   "CVMFS_QUOTA_LIMT (from /etc/cvmfs/default.local) is not a CVMFS client
//    parameter and is ignored; did you mean CVMFS_QUOTA_LIMIT?"
std::vector<std::string> UnknownParameterWarnings(const OptionsManager& opts);

}  // namespace cvmfs

#endif  // CLIENT_KNOWN_PARAMETERS_H_
