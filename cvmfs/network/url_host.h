// The host part of a URL, as CVMFS's dns::ExtractHost takes it: what lies
// between "//" (and a "user@") and the port or path. An IPv6 address keeps
// its brackets. Used for the names in Geo-API requests (geo_sort.h).
//
// Thread safety: a free function.
#ifndef CVMFS_NETWORK_URL_HOST_H_
#define CVMFS_NETWORK_URL_HOST_H_

#include <string>
#include <string_view>

namespace cvmfs {

// "http://u@s1.example.org:8000/cvmfs/x" -> "s1.example.org";
// "http://[::1]:3128" -> "[::1]"; "" when there is no "//" or no host.
std::string UrlHostName(std::string_view url);

}  // namespace cvmfs

#endif  // CVMFS_NETWORK_URL_HOST_H_
