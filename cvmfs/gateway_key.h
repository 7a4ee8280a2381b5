// Gateway keys and request signatures (doc/gateway.md, "Authentication"):
// the key files CVMFS's gateway and publishers share
// (/etc/cvmfs/keys/<fqrn>.gw: `plain_text <key id> <secret>`) and the HMAC
// that signs a request with a key.
//
// Free functions over values; thread-safe.
#ifndef CVMFS_GATEWAY_KEY_H_
#define CVMFS_GATEWAY_KEY_H_

#include <string>
#include <string_view>

#include "cvmfs/status.h"

namespace cvmfs {

struct GatewayKey {
  std::string id;
  std::string secret;
};

// Parses a key file's text: one line `plain_text <id> <secret>` (blanks
// around and a final newline allowed). InvalidArgument otherwise.
Result<GatewayKey> ParseGatewayKey(std::string_view text);
// Reads and parses the key file at `path`.
Result<GatewayKey> ReadGatewayKey(const std::string& path);

// hex(HMAC-SHA1(secret, input)), lowercase: what CVMFS signs.
std::string GatewayHmacHex(std::string_view secret, std::string_view input);
// The Authorization header's value: "<id> <base64(GatewayHmacHex)>".
std::string GatewayAuthorization(const GatewayKey& key, std::string_view input);

// Splits an Authorization header's value into key id and the HMAC it
// carries (the hex text, base64-decoded); InvalidArgument if malformed.
struct GatewaySignature {
  std::string key_id;
  std::string hmac_hex;
};
Result<GatewaySignature> ParseGatewayAuthorization(std::string_view header);
// Whether `signature` is the HMAC of `input` under `secret` (compared in
// constant time).
bool GatewayHmacMatches(const GatewaySignature& signature,
                        std::string_view secret, std::string_view input);

}  // namespace cvmfs

#endif  // CVMFS_GATEWAY_KEY_H_
