#include "server/cache_policy.h"

namespace server {

CachePolicy CachePolicyFor(std::string_view path) {
  size_t slash = path.rfind('/');
  std::string_view name =
      slash == std::string_view::npos ? path : path.substr(slash + 1);
  constexpr std::string_view kMetadataPrefix = ".cvmfs";
  constexpr std::string_view kJsonSuffix = ".json";
  if (name.substr(0, kMetadataPrefix.size()) == kMetadataPrefix)
    return {kMetadataMaxAgeSeconds, kMetadataContentType};
  if (name.size() > kJsonSuffix.size() &&
      name.substr(name.size() - kJsonSuffix.size()) == kJsonSuffix)
    return {kMetadataMaxAgeSeconds, kJsonContentType};
  return {kObjectMaxAgeSeconds, kObjectContentType};
}

}  // namespace server
