// Base64 (RFC 4648) in the two alphabets CVMFS uses: the standard one (the
// gateway's Authorization header) and the URL one (object pack names).
// Encoders always pad with '='. Free functions over values; thread-safe.
#ifndef CVMFS_BASE64_H_
#define CVMFS_BASE64_H_

#include <optional>
#include <string>
#include <string_view>

namespace cvmfs {

std::string Base64(std::string_view data);
std::string Base64Url(std::string_view data);
// Decodes either alphabet, padded ('=' to a multiple of 4) or not; nullopt
// on any other character or a length that cannot be base64.
std::optional<std::string> Debase64(std::string_view text);

}  // namespace cvmfs

#endif  // CVMFS_BASE64_H_
