// The table of every CVMFS client parameter (CVMFS's parameter appendix,
// doc/client.md "Every CVMFS parameter") and the ones this implementation
// adds, each with what this client does with it:
//
//   kSupported             read and acted on (by cvmfs2 or the tools)
//   kOurs                  this client's own parameter, not CVMFS's
//   kRefusedUnlessDefault  not implemented: only the value that matches
//                          this client's behaviour (CVMFS's default) passes
//   kRefused               not implemented: any value fails the mount
//
// A parameter that is set (non-empty) to a value the table refuses fails
// the mount with a message naming it, its value, its source and the reason
// (CheckRefusedParameters), so that no CVMFS parameter is silently ignored.
// Unknown CVMFS_* names (typos) are warned about, with a suggestion.
//
// Only names starting with CVMFS_ are judged: other names in the files are
// legitimately used as variables for variant symlinks and by site scripts.
//
// doc/client.md carries ClientParameterTableMarkdown() verbatim; a unit
// test keeps the two equal.
//
// Thread safety: stateless.
#ifndef CLIENT_KNOWN_PARAMETERS_H_
#define CLIENT_KNOWN_PARAMETERS_H_

#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/config/options_manager.h"
#include "cvmfs/status.h"

namespace cvmfs {

enum class ParameterSupport {
  kSupported,
  kOurs,
  kRefusedUnlessDefault,
  kRefused
};

struct ClientParameter {
  std::string_view name;
  ParameterSupport support;
  // kRefusedUnlessDefault: the one value that passes (booleans compare as
  // booleans: "no", "off", "false" and "0" are equal).
  std::string_view accepted;
  // kRefused*: why; otherwise what the parameter does here (may be empty).
  std::string_view note;
};

// Every named parameter, sorted by name.
const std::vector<ClientParameter>& ClientParameterTable();

// The entry for `name`, including the tiered-cache family
// CVMFS_CACHE_<instance>_<setting> (refused); null for an unknown name.
const ClientParameter* FindClientParameter(std::string_view name);

// True for a parameter CVMFS or this client understands.
bool IsKnownClientParameter(std::string_view name);

// InvalidArgument naming every parameter that is set to a value the table
// refuses, e.g. "CVMFS_NFS_SOURCE='yes' (from /etc/cvmfs/default.local) is
// not supported by this client: NFS export mode is not implemented (unset
// it, or set it to no)".
Status CheckRefusedParameters(const OptionsManager& opts);

// One warning per unknown CVMFS_* option, naming it, its source and, when a
// known name is within two edits, the likely intended one:
//   "CVMFS_QUOTA_LIMT (from /etc/cvmfs/default.local) is not a CVMFS client
//    parameter and is ignored; did you mean CVMFS_QUOTA_LIMIT?"
std::vector<std::string> UnknownParameterWarnings(const OptionsManager& opts);

// The Markdown rows of doc/client.md's parameter table, one per entry.
std::string ClientParameterTableMarkdown();

}  // namespace cvmfs

#endif  // CLIENT_KNOWN_PARAMETERS_H_
