#include "cvmfs/gateway_key.h"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

#include <optional>
#include <vector>

#include "cvmfs/base64.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/text.h"

namespace cvmfs {

Result<GatewayKey> ParseGatewayKey(std::string_view text) {
  std::vector<std::string> fields = SplitNonEmpty(Trim(text), " \t\n");
  if (fields.size() != 3 || fields[0] != "plain_text")
    return Status::InvalidArgument(
        "gateway key: expected one line 'plain_text <key id> <secret>'");
  return GatewayKey{fields[1], fields[2]};
}

Result<GatewayKey> ReadGatewayKey(const std::string& path) {
  CVMFS_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  Result<GatewayKey> key = ParseGatewayKey(text);
  if (!key.ok()) return key.status().Annotate(path);
  return key;
}

std::string GatewayHmacHex(std::string_view secret, std::string_view input) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  HMAC(EVP_sha1(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(input.data()), input.size(), mac,
       &len);
  return ToHex(mac, len);
}

std::string GatewayAuthorization(const GatewayKey& key,
                                 std::string_view input) {
  return key.id + " " + Base64(GatewayHmacHex(key.secret, input));
}

Result<GatewaySignature> ParseGatewayAuthorization(std::string_view header) {
  size_t sp = header.find(' ');
  if (sp == std::string_view::npos || sp == 0 ||
      header.find(' ', sp + 1) != std::string_view::npos)
    return Status::InvalidArgument("Authorization: expected '<key id> <hmac>'");
  std::optional<std::string> hmac = Debase64(header.substr(sp + 1));
  if (!hmac) return Status::InvalidArgument("Authorization: HMAC not base64");
  return GatewaySignature{std::string(header.substr(0, sp)), std::move(*hmac)};
}

bool GatewayHmacMatches(const GatewaySignature& signature,
                        std::string_view secret, std::string_view input) {
  std::string want = GatewayHmacHex(secret, input);
  return want.size() == signature.hmac_hex.size() &&
         CRYPTO_memcmp(want.data(), signature.hmac_hex.data(), want.size()) ==
             0;
}

}  // namespace cvmfs
