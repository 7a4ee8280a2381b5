#include "client/trust_chain.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <ctime>

#include "cvmfs/file_util.h"
#include "cvmfs/time_format.h"

namespace cvmfs::client {

namespace {

// "2026-11-22 17:46:59 UTC", for messages.
std::string FormatUtc(time_t t) {
  return FormatTime(t, "%Y-%m-%d %H:%M:%S UTC", TimeZone::kUtc);
}

class MemorySink : public DownloadSink {
 public:
  Status Write(const void* data, size_t size) override {
    if (bytes_.size() + size > kMaxSignedFileSize)
      return Status::Corruption("larger than " +
                                std::to_string(kMaxSignedFileSize) +
                                " bytes; not a CVMFS signed file");
    bytes_.append(static_cast<const char*>(data), size);
    return Status::Ok();
  }
  void Reset() override { bytes_.clear(); }
  std::string& bytes() { return bytes_; }

 private:
  std::string bytes_;
};

Result<std::string> FetchSmallFile(Fetcher* fetcher, std::string_view name,
                                   std::string* host) {
  MemorySink sink;
  DownloadRequest request{std::string(name), /*no_cache=*/false};
  DownloadResult result = fetcher->Fetch(request, &sink);
  if (!result.status.ok()) return result.status.Annotate(std::string(name));
  if (host) *host = result.host;
  return std::move(sink.bytes());
}

}  // namespace

Result<Blacklist> Blacklist::Load(const std::string& file) {
  if (file.empty()) return Blacklist();
  auto text = ReadFile(file);
  if (!text.ok()) {
    if (text.status().code() == Status::Code::kNotFound) return Blacklist();
    return text.status().Annotate("blacklist");
  }
  auto parsed = Parse(*text);
  if (!parsed.ok()) return parsed.status().Annotate(file);
  parsed->source = file;
  return parsed;
}

Result<Blacklist> Blacklist::Parse(std::string_view text) {
  Blacklist b;
  size_t pos = 0, line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string line(text.substr(pos, end - pos));
    pos = end + 1;
    ++line_no;
    size_t hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    while (!line.empty() &&
           std::isspace(static_cast<unsigned char>(line.back())))
      line.pop_back();
    size_t start = line.find_first_not_of(" \t");
    if (start == std::string::npos) continue;
    line = line.substr(start);
    if (line[0] == '<') {
      size_t space = line.find_first_of(" \t");
      std::string fqrn = line.substr(
          1, space == std::string::npos ? std::string::npos : space - 1);
      std::string number =
          space == std::string::npos
              ? ""
              : line.substr(line.find_first_not_of(" \t", space));
      char* rest = nullptr;
      unsigned long long n = std::strtoull(number.c_str(), &rest, 10);
      if (fqrn.empty() || number.empty() || (rest && *rest))
        return Status::InvalidArgument("blacklist line " +
                                       std::to_string(line_no) + " '" + line +
                                       "': expected '<FQRN REVISION'");
      b.min_revisions.emplace_back(fqrn, n);
    } else {
      auto fp = ParseFingerprint(line);
      if (!fp.ok())
        return Status::InvalidArgument("blacklist line " +
                                       std::to_string(line_no) + " '" + line +
                                       "': not a certificate fingerprint");
      b.fingerprints.push_back(FormatFingerprint(*fp));
    }
  }
  return b;
}

Status Blacklist::Check(const std::string& fqrn, const Certificate& cert,
                        uint64_t revision) const {
  const std::string where = source.empty() ? "" : " in " + source;
  for (const std::string& fp : fingerprints) {
    auto digest = ParseFingerprint(fp);
    if (digest.ok() &&
        FormatFingerprint(*digest) == cert.Fingerprint(digest->algorithm))
      return Status::Permission("certificate " + fp + " of " + fqrn +
                                " is blacklisted" + where);
  }
  return CheckRevision(fqrn, revision);
}

Status Blacklist::CheckRevision(const std::string& fqrn,
                                uint64_t revision) const {
  for (const auto& [name, min] : min_revisions)
    if (name == fqrn && revision < min)
      return Status::Permission(
          "revision " + std::to_string(revision) + " of " + fqrn +
          " is blacklisted (revisions below " + std::to_string(min) +
          " are refused" + (source.empty() ? "" : " by " + source) + ")");
  return Status::Ok();
}

Result<std::vector<PublicKey>> LoadPublicKeys(
    const std::vector<std::string>& files) {
  std::vector<PublicKey> keys;
  for (const std::string& file : files) {
    auto pem = ReadFile(file);
    if (!pem.ok()) return pem.status().Annotate("public key " + file);
    auto key = PublicKey::FromPem(*pem);
    if (!key.ok()) return key.status().Annotate("public key " + file);
    keys.push_back(std::move(key).value());
  }
  if (keys.empty())
    return Status::InvalidArgument(
        "no public master key configured (CVMFS_PUBLIC_KEY or "
        "*.pub files in CVMFS_KEYS_DIR)");
  return keys;
}

Result<TrustedManifest> FetchTrustedManifest(
    Fetcher* fetcher, ObjectFetcher* objects, const std::string& fqrn,
    const std::vector<PublicKey>& master_keys, time_t now,
    const Blacklist* blacklist) {
  TrustedManifest trusted;
  CVMFS_ASSIGN_OR_RETURN(std::string wl_text,
                         FetchSmallFile(fetcher, kWhitelistName, nullptr));
  auto wl = Whitelist::Parse(wl_text);
  if (!wl.ok()) return wl.status().Annotate("whitelist of " + fqrn);
  CVMFS_RETURN_IF_ERROR(
      VerifyWhitelist(*wl, master_keys)
          .Annotate("whitelist of " + fqrn + " is not signed by a master key"));
  if (wl->whitelist.fqrn != fqrn)
    return Status::Corruption("whitelist is for repository '" +
                              wl->whitelist.fqrn + "', not " + fqrn);
  if (wl->whitelist.IsExpired(now))
    return Status::Corruption(
        "whitelist of " + fqrn + " expired at " +
        FormatUtc(wl->whitelist.expires) +
        " (the repository owner must run cvmfs_server resign)");

  const Clock::TimePoint started = objects->clock()->Now();
  CVMFS_ASSIGN_OR_RETURN(std::string mf_text,
                         FetchSmallFile(fetcher, kManifestName, &trusted.host));
  trusted.manifest_fetch = objects->clock()->Now() - started;
  auto mf = Manifest::Parse(mf_text);
  if (!mf.ok()) return mf.status().Annotate("manifest of " + fqrn);
  if (!mf->manifest.fqrn.empty() && mf->manifest.fqrn != fqrn)
    return Status::Corruption("manifest is for repository '" +
                              mf->manifest.fqrn + "', not " + fqrn);
  if (!mf->manifest.certificate)
    return Status::Corruption("manifest of " + fqrn +
                              " names no certificate (X)");

  ObjectRequest cert_request;
  cert_request.digest = *mf->manifest.certificate;
  cert_request.suffix = ObjectSuffix::kCertificate;
  cert_request.description = "certificate of " + fqrn;
  // The certificate is content-addressed: kept in the cache like any object.
  CVMFS_ASSIGN_OR_RETURN(auto cert_handle, objects->Open(cert_request));
  std::string cert_pem(cert_handle.size(), '\0');
  if (::pread(cert_handle.fd(), cert_pem.data(), cert_pem.size(), 0) !=
      static_cast<ssize_t>(cert_pem.size()))
    return Status::IoError("cannot read the cached certificate of " + fqrn);
  auto cert = Certificate::FromPem(cert_pem);
  if (!cert.ok()) return cert.status().Annotate("certificate of " + fqrn);
  if (!wl->whitelist.ListsCertificate(*cert))
    return Status::Corruption("certificate " + cert->Fingerprint() + " of " +
                              fqrn + " is not listed in the whitelist");
  CVMFS_RETURN_IF_ERROR(
      VerifyManifest(*mf, *cert).Annotate("manifest of " + fqrn));
  if (blacklist)
    CVMFS_RETURN_IF_ERROR(blacklist->Check(fqrn, *cert, mf->manifest.revision));

  trusted.manifest = std::move(mf->manifest);
  trusted.whitelist = std::move(wl->whitelist);
  return trusted;
}

}  // namespace cvmfs::client

namespace cvmfs::client {

Result<TrustedManifest> FetchTrustedManifestFailover(
    Fetcher* fetcher, ObjectFetcher* objects, const std::string& fqrn,
    const std::vector<PublicKey>& master_keys, time_t now,
    const Blacklist* blacklist,
    const std::function<bool(const Status&)>& next_host) {
  for (;;) {
    auto trusted = FetchTrustedManifest(fetcher, objects, fqrn, master_keys,
                                        now, blacklist);
    if (trusted.ok()) return trusted;
    const Status::Code code = trusted.status().code();
    const bool server_problem =
        code == Status::Code::kCorruption || code == Status::Code::kNotFound;
    if (!server_problem || !next_host || !next_host(trusted.status()))
      return trusted;
  }
}

}  // namespace cvmfs::client
