// Fuzz target: the whole chain of trust (trust_chain.h) as a client checks
// it, with the master key of the fixture repository sha1-zlib.example.org
// (so a seed made of its real files verifies all the way) and a fixed time.
// The input is whitelist, manifest and certificate PEM, separated by lines
// "--8<--" (test/fuzz/corpus/trust_chain_fuzzer/).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/signature.h"
#include "cvmfs/trust_chain.h"

namespace {

constexpr char kMasterKey[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MIIBIjANBgkqhkiG9w0BAQEFAAOCAQ8AMIIBCgKCAQEAkFqMDRdhOmeXp46HeMde\n"
    "NxNdKYcBvS4gWbzRtlV5GlmXVXHEfDw6nfHhYeL6VWCx8kx4YEZzTfOxIR5CqMXt\n"
    "+UXmRYZeomi/9KzwCUAl6A8zhZZrI3p7pv+fa+It2ySHGQvs8j1sstJpAi/CN+dD\n"
    "vy8AdAf5qeBbPFBCspEfGRXoqbv1KjCk50sY4WVjVtIQMC5U/5rsO+ypPOw1GvTg\n"
    "0GOuuedmPZS/CXirT6IaeMT5tCihJEdLySVHXLh+IMa2GThp7WCbKPaEnZ45bAO/\n"
    "KGtH0Bjqhp3Gjm8L1epkooXLeI2+OVdGdhKBq3qv8H9j9X111iGSr+1axrlH7eD7\n"
    "VQIDAQAB\n"
    "-----END PUBLIC KEY-----\n";
constexpr char kFqrn[] = "sha1-zlib.example.org";
constexpr time_t kNow = 1800000000;  // 2027-01-15, before the seeds expire
constexpr std::string_view kSeparator = "\n--8<--\n";

const std::vector<cvmfs::PublicKey>& MasterKeys() {
  static const std::vector<cvmfs::PublicKey>* keys = [] {
    auto key = cvmfs::PublicKey::FromPem(kMasterKey);
    if (!key.ok()) abort();
    auto* v = new std::vector<cvmfs::PublicKey>();
    v->push_back(std::move(key).value());
    return v;
  }();
  return *keys;
}

// Hands out the three parts of the input.
class SplitSource : public cvmfs::TrustChainSource {
 public:
  explicit SplitSource(std::string_view input) {
    for (int i = 0; i < 2; ++i) {
      size_t sep = input.find(kSeparator);
      if (sep == std::string_view::npos) break;
      parts_[i] = std::string(input.substr(0, sep));
      input.remove_prefix(sep + kSeparator.size());
    }
    parts_[2] = std::string(input);
  }
  cvmfs::Result<std::string> FetchWhitelist() override { return parts_[0]; }
  cvmfs::Result<std::string> FetchManifest() override { return parts_[1]; }
  cvmfs::Result<std::string> FetchCertificate(const cvmfs::Digest&,
                                              const std::string&) override {
    return parts_[2];
  }

 private:
  std::string parts_[3];
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::string_view input(reinterpret_cast<const char*>(data), size);
  SplitSource source(input);
  (void)cvmfs::VerifyTrustChain(&source, MasterKeys(), kFqrn, kNow);
  SplitSource any_name(input);
  (void)cvmfs::VerifyTrustChain(&any_name, MasterKeys(), "", kNow);
  return 0;
}
