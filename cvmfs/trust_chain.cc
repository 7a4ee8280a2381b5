#include "cvmfs/trust_chain.h"

#include <ctime>
#include <string_view>
#include <utility>

#include "cvmfs/file_util.h"
#include "cvmfs/time_format.h"

namespace cvmfs {

namespace {

// "2026-11-22 17:46:59 UTC", for messages.
std::string FormatUtc(time_t t) {
  return FormatTime(t, "%Y-%m-%d %H:%M:%S UTC", TimeZone::kUtc);
}

// Signed by a master key, for `fqrn` (any name if empty), not expired.
Result<Whitelist> CheckWhitelist(std::string_view file,
                                 const std::vector<PublicKey>& master_keys,
                                 const std::string& fqrn, time_t now) {
  auto wl = Whitelist::Parse(file);
  if (!wl.ok())
    return wl.status().Annotate(
        "whitelist of " +
        (fqrn.empty() ? std::string("the repository") : fqrn));
  const std::string& name = wl->whitelist.fqrn;
  CVMFS_RETURN_IF_ERROR(
      VerifyWhitelist(*wl, master_keys)
          .Annotate("whitelist of " + name + " is not signed by a master key"));
  if (!fqrn.empty() && name != fqrn)
    return Status::Corruption("whitelist is for repository '" + name +
                              "', not " + fqrn);
  if (wl->whitelist.IsExpired(now))
    return Status::Corruption(
        "whitelist of " + name + " expired at " +
        FormatUtc(wl->whitelist.expires) +
        " (the repository owner must run cvmfs_server resign)");
  return std::move(wl->whitelist);
}

// For repository `fqrn`, naming a certificate.
Result<SignedManifest> CheckManifest(std::string_view file,
                                     const std::string& fqrn) {
  auto mf = Manifest::Parse(file);
  if (!mf.ok()) return mf.status().Annotate("manifest of " + fqrn);
  if (!mf->manifest.fqrn.empty() && mf->manifest.fqrn != fqrn)
    return Status::Corruption("manifest is for repository '" +
                              mf->manifest.fqrn + "', not " + fqrn);
  if (!mf->manifest.certificate)
    return Status::Corruption("manifest of " + fqrn +
                              " names no certificate (X)");
  return mf;
}

// Listed in the whitelist and the manifest's signer.
Result<Certificate> CheckCertificate(std::string_view pem,
                                     const Whitelist& whitelist,
                                     const SignedManifest& manifest) {
  const std::string& fqrn = whitelist.fqrn;
  auto cert = Certificate::FromPem(pem);
  if (!cert.ok()) return cert.status().Annotate("certificate of " + fqrn);
  if (!whitelist.ListsCertificate(*cert))
    return Status::Corruption("certificate " + cert->Fingerprint() + " of " +
                              fqrn + " is not listed in the whitelist");
  CVMFS_RETURN_IF_ERROR(
      VerifyManifest(manifest, *cert).Annotate("manifest of " + fqrn));
  return cert;
}

}  // namespace

Result<VerifiedChain> VerifyTrustChain(
    TrustChainSource* source, const std::vector<PublicKey>& master_keys,
    const std::string& fqrn, time_t now) {
  CVMFS_ASSIGN_OR_RETURN(std::string wl_file, source->FetchWhitelist());
  CVMFS_ASSIGN_OR_RETURN(Whitelist whitelist,
                         CheckWhitelist(wl_file, master_keys, fqrn, now));
  const std::string name = whitelist.fqrn;
  CVMFS_ASSIGN_OR_RETURN(std::string mf_file, source->FetchManifest());
  CVMFS_ASSIGN_OR_RETURN(SignedManifest manifest, CheckManifest(mf_file, name));
  CVMFS_ASSIGN_OR_RETURN(
      std::string pem,
      source->FetchCertificate(*manifest.manifest.certificate, name));
  CVMFS_ASSIGN_OR_RETURN(Certificate certificate,
                         CheckCertificate(pem, whitelist, manifest));
  return VerifiedChain{std::move(whitelist), std::move(manifest.manifest),
                       std::move(certificate)};
}

Result<std::vector<PublicKey>> LoadMasterKeys(
    const std::vector<std::string>& files) {
  std::vector<PublicKey> keys;
  for (const std::string& file : files) {
    auto pem = ReadFile(file);
    if (!pem.ok()) return pem.status().Annotate("master public key " + file);
    auto key = PublicKey::FromPem(*pem);
    if (!key.ok()) return key.status().Annotate("master public key " + file);
    keys.push_back(std::move(key).value());
  }
  if (keys.empty())
    return Status::InvalidArgument("no master public key configured");
  return keys;
}

}  // namespace cvmfs
