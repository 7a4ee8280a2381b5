#include "client/magic_xattrs_visibility.h"

#include <cctype>

namespace cvmfs::client {

Result<MagicXattrsVisibility> ParseMagicXattrsVisibility(
    const std::string& value) {
  std::string v;
  for (char c : value)
    v += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (v == "always") return MagicXattrsVisibility::kAlways;
  if (v == "rootonly") return MagicXattrsVisibility::kRootOnly;
  if (v == "never") return MagicXattrsVisibility::kNever;
  return Status::InvalidArgument("magic attribute visibility '" + value +
                                 "': expected always, rootonly or never");
}

}  // namespace cvmfs::client
