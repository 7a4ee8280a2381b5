// Fuzz target: a `.cvmfswhitelist` from the network (whitelist.h): parse,
// export round trip, the expiry and fingerprint checks a client makes, and
// verification against a fixed master key (must fail cleanly).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/signature.h"
#include "cvmfs/whitelist.h"

namespace {

struct Keys {
  std::vector<cvmfs::PublicKey> masters;
  cvmfs::Certificate cert;
};

const Keys& FixedKeys() {
  static const Keys* keys = [] {
    auto key = cvmfs::PrivateKey::Generate(1024);
    if (!key.ok()) abort();
    auto cert = cvmfs::Certificate::CreateSelfSigned(*key, "fuzz", 1);
    auto pub = key->Public();
    if (!cert.ok() || !pub.ok()) abort();
    auto* k = new Keys{{}, std::move(cert).value()};
    k->masters.push_back(std::move(pub).value());
    return k;
  }();
  return *keys;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view file(reinterpret_cast<const char*>(data), size);
  auto parsed = cvmfs::Whitelist::Parse(file);
  if (!parsed.ok()) return 0;
  const cvmfs::Whitelist& w = parsed->whitelist;
  const std::string text = w.ExportText();
  auto again = cvmfs::Whitelist::Parse(text);
  if (!again.ok() || again->whitelist.ExportText() != text) {
    fprintf(stderr, "whitelist does not survive ExportText/Parse:\n%s\n%s\n",
            text.c_str(), again.status().ToString().c_str());
    abort();
  }
  const Keys& keys = FixedKeys();
  (void)cvmfs::VerifyWhitelist(*parsed, keys.masters);
  (void)w.IsExpired(w.created);
  (void)w.IsExpired(w.expires);
  (void)w.ListsCertificate(keys.cert);
  for (const std::string& fp : w.fingerprints) {
    if (!w.ListsFingerprint(fp)) {
      fprintf(stderr, "whitelist does not list its own fingerprint %s\n",
              fp.c_str());
      abort();
    }
  }
  (void)cvmfs::ParseWhitelistTime(std::string_view(file).substr(0, 14));
  return 0;
}
