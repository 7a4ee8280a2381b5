#include "server/replication/source_verifier.h"

#include <utility>

#include "cvmfs/compression.h"
#include "cvmfs/network/string_sink.h"
#include "cvmfs/object_name.h"

namespace replication {

using cvmfs::Result;
using cvmfs::Status;

namespace {

Result<std::string> FetchSmall(cvmfs::Fetcher* fetcher,
                               const std::string& path) {
  cvmfs::StringSink sink(cvmfs::kMaxSignedFileSize);
  cvmfs::DownloadResult result =
      fetcher->Fetch({path, /*no_cache=*/true}, &sink);
  if (!result.status.ok()) return result.status.Annotate("downloading " + path);
  return sink.TakeBody();
}

// Every file fresh from the source, kept as served.
class SourceFiles : public cvmfs::TrustChainSource {
 public:
  SourceFiles(cvmfs::Fetcher* fetcher, VerifiedSource* files)
      : fetcher_(fetcher), files_(files) {}

  Result<std::string> FetchWhitelist() override {
    return Keep(FetchSmall(fetcher_, std::string(cvmfs::kWhitelistName)),
                &files_->whitelist_file);
  }
  Result<std::string> FetchManifest() override {
    if (!files_->manifest_file.empty()) return files_->manifest_file;
    return Keep(FetchSmall(fetcher_, std::string(cvmfs::kManifestName)),
                &files_->manifest_file);
  }
  // The certificate object: verified by its hash, then decompressed.
  Result<std::string> FetchCertificate(const cvmfs::Digest& hash,
                                       const std::string& fqrn) override {
    const std::string path =
        cvmfs::ObjectPath(hash, cvmfs::ObjectSuffix::kCertificate);
    auto object = FetchSmall(fetcher_, path);
    if (!object.ok()) return object.status().Annotate(fqrn);
    if (cvmfs::HashString(hash.algorithm, *object) != hash)
      return Status::Corruption(fqrn + ": certificate " + path +
                                " does not match its hash");
    std::string pem;
    CVMFS_RETURN_IF_ERROR(cvmfs::Decompress(*object, &pem)
                              .Annotate("certificate " + path)
                              .Annotate(fqrn));
    files_->certificate_object = std::move(object).value();
    return pem;
  }

 private:
  static Result<std::string> Keep(Result<std::string> file, std::string* kept) {
    if (file.ok()) *kept = *file;
    return file;
  }

  cvmfs::Fetcher* fetcher_;
  VerifiedSource* files_;
};

}  // namespace

Result<VerifiedSource> FetchVerifiedSource(
    cvmfs::Fetcher* fetcher, const std::vector<cvmfs::PublicKey>& master_keys,
    const std::string& fqrn, time_t now) {
  VerifiedSource source;
  SourceFiles files(fetcher, &source);
  CVMFS_ASSIGN_OR_RETURN(
      cvmfs::VerifiedChain chain,
      cvmfs::VerifyTrustChain(&files, master_keys, fqrn, now));
  source.whitelist = std::move(chain.whitelist);
  source.manifest = std::move(chain.manifest);
  return source;
}

Result<VerifiedSource> VerifyAnnouncedManifest(
    cvmfs::Fetcher* fetcher, const std::vector<cvmfs::PublicKey>& master_keys,
    const std::string& fqrn, std::string manifest, time_t now) {
  VerifiedSource source;
  source.manifest_file = std::move(manifest);  // FetchManifest returns it
  if (source.manifest_file.empty())
    return Status::Corruption("announced manifest of " + fqrn + " is empty");
  SourceFiles files(fetcher, &source);
  CVMFS_ASSIGN_OR_RETURN(
      cvmfs::VerifiedChain chain,
      cvmfs::VerifyTrustChain(&files, master_keys, fqrn, now));
  source.whitelist = std::move(chain.whitelist);
  source.manifest = std::move(chain.manifest);
  return source;
}

Status CheckReplicationAllowed(cvmfs::Fetcher* fetcher,
                               const std::string& source) {
  cvmfs::StringSink sink(cvmfs::kMaxSignedFileSize);
  cvmfs::DownloadResult result = fetcher->Fetch(
      {std::string(cvmfs::kMasterReplicaName), /*no_cache=*/true}, &sink);
  if (result.status.IsNotFound())
    return Status::NotSupported(
        source + " does not allow replication (it has no " +
        std::string(cvmfs::kMasterReplicaName) + "; is it a Stratum 0?)");
  return result.status.Annotate("checking " + source);
}

}  // namespace replication
