// Fuzz target: a `.cvmfspublished` as it arrives from a server or a proxy
// (manifest.h). Whatever parses must export to text that parses to the same
// text again, and its signature is checked against a fixed certificate
// (which must fail cleanly, never crash).
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "cvmfs/manifest.h"
#include "cvmfs/signature.h"

namespace {

const cvmfs::Certificate& FixedCertificate() {
  static const cvmfs::Certificate* cert = [] {
    auto key = cvmfs::PrivateKey::Generate(1024);
    if (!key.ok()) abort();
    auto c = cvmfs::Certificate::CreateSelfSigned(*key, "fuzz", 1);
    if (!c.ok()) abort();
    return new cvmfs::Certificate(std::move(c).value());
  }();
  return *cert;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view file(reinterpret_cast<const char*>(data), size);
  auto parsed = cvmfs::Manifest::Parse(file);
  if (!parsed.ok()) return 0;
  const std::string text = parsed->manifest.ExportText();
  auto again = cvmfs::Manifest::Parse(text);
  if (!again.ok() || again->manifest.ExportText() != text) {
    fprintf(stderr, "manifest does not survive ExportText/Parse:\n%s\n%s\n",
            text.c_str(), again.status().ToString().c_str());
    abort();
  }
  (void)cvmfs::VerifyManifest(*parsed, FixedCertificate());
  return 0;
}
