// How long proxies and clients may cache a file of a repository's storage,
// and its Content-Type: the one place that knows the expiry classes of the
// CVMFS HTTP layout (doc/serving.md). The embedded server sends these
// headers itself; the Apache snippet (apache_config.h) makes mod_expires
// send the same ones.
//
//   .cvmfs* files       (.cvmfspublished, .cvmfswhitelist, .cvmfsreflog, ...)
//                       change on every publish: 61 s, application/x-cvmfs
//   *.json              repository meta-information: 61 s, application/json
//   everything else     content-addressed objects in data/, which never
//                       change under their name: 3 days, octet-stream
//
// Thread safety: pure functions and constants.
#ifndef SERVER_CACHE_POLICY_H_
#define SERVER_CACHE_POLICY_H_

#include <string_view>

namespace server {

// CVMFS's Apache configuration: "access plus 61 seconds" for the signed
// metadata (one second more than the client's minimum catalog TTL of one
// minute), "access plus 3 days" for the immutable objects.
inline constexpr int kMetadataMaxAgeSeconds = 61;
inline constexpr int kObjectMaxAgeSeconds = 3 * 24 * 3600;

inline constexpr std::string_view kMetadataContentType = "application/x-cvmfs";
inline constexpr std::string_view kJsonContentType = "application/json";
inline constexpr std::string_view kObjectContentType =
    "application/octet-stream";

struct CachePolicy {
  int max_age_seconds;
  std::string_view content_type;
};

// `path` is relative to the repository's storage directory ("data/ab/cd..",
// ".cvmfspublished"); only its last component matters.
CachePolicy CachePolicyFor(std::string_view path);

}  // namespace server

#endif  // SERVER_CACHE_POLICY_H_
