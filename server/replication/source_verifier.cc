#include "server/replication/source_verifier.h"

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/network/string_sink.h"
#include "cvmfs/object_name.h"

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

namespace {

Result<std::string> FetchSmall(cvmfs::Fetcher* fetcher,
                               const std::string& path) {
  cvmfs::StringSink sink(kMaxSignedFileSize);
  cvmfs::DownloadResult result =
      fetcher->Fetch({path, /*no_cache=*/true}, &sink);
  if (!result.status.ok()) return result.status.Annotate("downloading " + path);
  return sink.TakeBody();
}

Result<cvmfs::SignedWhitelist> FetchWhitelist(
    cvmfs::Fetcher* fetcher, const std::vector<cvmfs::PublicKey>& keys,
    const std::string& fqrn, time_t now, std::string* raw) {
  CVMFS_ASSIGN_OR_RETURN(
      *raw, FetchSmall(fetcher, std::string(cvmfs::kWhitelistName)));
  auto wl = cvmfs::Whitelist::Parse(*raw);
  if (!wl.ok()) return wl.status().Annotate("whitelist of the source");
  const std::string name = wl->whitelist.fqrn;
  CVMFS_RETURN_IF_ERROR(cvmfs::VerifyWhitelist(*wl, keys).Annotate(
      "whitelist of " + name + " is not signed by the configured master key"));
  if (!fqrn.empty() && name != fqrn)
    return Status::Corruption("the source's whitelist is for repository '" +
                              name + "', not " + fqrn);
  if (wl->whitelist.IsExpired(now))
    return Status::Corruption(
        "whitelist of " + name + " expired at " +
        cvmfs::FormatWhitelistTime(wl->whitelist.expires) +
        " UTC (the repository owner must run cvmfs_server resign)");
  return wl;
}

// The certificate object: verified by its hash, then its PEM parsed.
Result<cvmfs::Certificate> FetchCertificate(cvmfs::Fetcher* fetcher,
                                            const cvmfs::Digest& hash,
                                            std::string* object) {
  const std::string path =
      cvmfs::ObjectPath(hash, cvmfs::ObjectSuffix::kCertificate);
  CVMFS_ASSIGN_OR_RETURN(*object, FetchSmall(fetcher, path));
  if (cvmfs::HashString(hash.algorithm, *object) != hash)
    return Status::Corruption("certificate " + path +
                              " does not match its hash");
  std::string pem;
  CVMFS_RETURN_IF_ERROR(
      cvmfs::Decompress(*object, &pem).Annotate("certificate " + path));
  return cvmfs::Certificate::FromPem(pem);
}

}  // namespace

Result<VerifiedSource> FetchVerifiedSource(
    cvmfs::Fetcher* fetcher, const std::vector<cvmfs::PublicKey>& master_keys,
    const std::string& fqrn, time_t now) {
  VerifiedSource source;
  CVMFS_ASSIGN_OR_RETURN(auto wl, FetchWhitelist(fetcher, master_keys, fqrn,
                                                 now, &source.whitelist_file));
  const std::string name = wl.whitelist.fqrn;

  CVMFS_ASSIGN_OR_RETURN(
      source.manifest_file,
      FetchSmall(fetcher, std::string(cvmfs::kManifestName)));
  auto mf = cvmfs::Manifest::Parse(source.manifest_file);
  if (!mf.ok()) return mf.status().Annotate("manifest of " + name);
  if (!mf->manifest.fqrn.empty() && mf->manifest.fqrn != name)
    return Status::Corruption("the source's manifest is for repository '" +
                              mf->manifest.fqrn + "', its whitelist for " +
                              name);
  if (!mf->manifest.certificate)
    return Status::Corruption("manifest of " + name +
                              " names no certificate (X)");

  auto cert = FetchCertificate(fetcher, *mf->manifest.certificate,
                               &source.certificate_object);
  if (!cert.ok()) return cert.status().Annotate(name);
  if (!wl.whitelist.ListsCertificate(*cert))
    return Status::Corruption("certificate " + cert->Fingerprint() + " of " +
                              name + " is not listed in the whitelist");
  CVMFS_RETURN_IF_ERROR(
      cvmfs::VerifyManifest(*mf, *cert).Annotate("manifest of " + name));

  source.whitelist = std::move(wl.whitelist);
  source.manifest = std::move(mf->manifest);
  return source;
}

Status CheckReplicationAllowed(cvmfs::Fetcher* fetcher,
                               const std::string& source) {
  cvmfs::StringSink sink(kMaxSignedFileSize);
  cvmfs::DownloadResult result = fetcher->Fetch(
      {std::string(cvmfs::kMasterReplicaName), /*no_cache=*/true}, &sink);
  if (result.status.IsNotFound())
    return Status::NotSupported(
        source + " does not allow replication (it has no " +
        std::string(cvmfs::kMasterReplicaName) + "; is it a Stratum 0?)");
  return result.status.Annotate("checking " + source);
}

Result<std::vector<cvmfs::PublicKey>> LoadMasterKeys(
    const std::vector<std::string>& files) {
  std::vector<cvmfs::PublicKey> keys;
  for (const std::string& file : files) {
    auto pem = cvmfs::ReadFile(file);
    if (!pem.ok()) return pem.status().Annotate("master public key " + file);
    auto key = cvmfs::PublicKey::FromPem(*pem);
    if (!key.ok()) return key.status().Annotate("master public key " + file);
    keys.push_back(std::move(key).value());
  }
  if (keys.empty())
    return Status::InvalidArgument("no master public key configured");
  return keys;
}

}  // namespace replication
