#include "client/trust_chain.h"

#include <unistd.h>

#include <cctype>
#include <cstdlib>
#include <ctime>
#include <optional>
#include <utility>

#include "cvmfs/file_util.h"

namespace cvmfs::client {

namespace {

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
  request.metadata = true;  // signed: bounded by the metadata deadline
  DownloadResult result = fetcher->Fetch(request, &sink);
  if (!result.status.ok()) return result.status.Annotate(std::string(name));
  if (host) *host = result.host;
  return std::move(sink.bytes());
}

// Whitelist and manifest from the servers, the certificate from the cache
// (it is content-addressed: kept like any object).
class ServerSource : public TrustChainSource {
 public:
  ServerSource(Fetcher* fetcher, ObjectFetcher* objects)
      : fetcher_(fetcher), objects_(objects) {}

  Result<std::string> FetchWhitelist() override {
    return FetchSmallFile(fetcher_, kWhitelistName, nullptr);
  }
  Result<std::string> FetchManifest() override {
    if (announced_) return std::move(*announced_);
    const Clock::TimePoint started = objects_->clock()->Now();
    auto file = FetchSmallFile(fetcher_, kManifestName, &host_);
    manifest_fetch_ = objects_->clock()->Now() - started;
    return file;
  }
  Result<std::string> FetchCertificate(const Digest& digest,
                                       const std::string& fqrn) override {
    ObjectRequest request;
    request.digest = digest;
    request.suffix = ObjectSuffix::kCertificate;
    request.description = "certificate of " + fqrn;
    CVMFS_ASSIGN_OR_RETURN(auto handle, objects_->Open(request));
    std::string pem(handle.size(), '\0');
    if (::pread(handle.fd(), pem.data(), pem.size(), 0) !=
        static_cast<ssize_t>(pem.size()))
      return Status::IoError("cannot read the cached certificate of " + fqrn);
    return pem;
  }

  // The manifest comes from a notification instead of a server.
  void Announce(std::string manifest) { announced_ = std::move(manifest); }
  const std::string& host() const { return host_; }
  Clock::Duration manifest_fetch() const { return manifest_fetch_; }

 private:
  Fetcher* fetcher_;
  ObjectFetcher* objects_;
  std::string host_;  // of the manifest
  std::optional<std::string> announced_;
  Clock::Duration manifest_fetch_{};
};

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

Result<Blacklist> Blacklist::LoadAll(const std::vector<std::string>& files) {
  Blacklist all;
  for (const std::string& file : files) {
    CVMFS_ASSIGN_OR_RETURN(Blacklist one, Load(file));
    if (one.fingerprints.empty() && one.min_revisions.empty()) continue;
    all.fingerprints.insert(all.fingerprints.end(), one.fingerprints.begin(),
                            one.fingerprints.end());
    all.min_revisions.insert(all.min_revisions.end(), one.min_revisions.begin(),
                             one.min_revisions.end());
    all.source += (all.source.empty() ? "" : ", ") + one.source;
  }
  return all;
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
  if (files.empty())
    return Status::InvalidArgument(
        "no public master key configured (CVMFS_PUBLIC_KEY or "
        "*.pub files in CVMFS_KEYS_DIR)");
  return LoadMasterKeys(files);
}

namespace {

Result<TrustedManifest> Verify(ServerSource* source, const std::string& fqrn,
                               const std::vector<PublicKey>& master_keys,
                               time_t now, const Blacklist* blacklist) {
  CVMFS_ASSIGN_OR_RETURN(VerifiedChain chain,
                         VerifyTrustChain(source, master_keys, fqrn, now));
  if (blacklist)
    CVMFS_RETURN_IF_ERROR(
        blacklist->Check(fqrn, chain.certificate, chain.manifest.revision));
  TrustedManifest trusted;
  trusted.manifest = std::move(chain.manifest);
  trusted.whitelist = std::move(chain.whitelist);
  trusted.host = source->host();
  trusted.manifest_fetch = source->manifest_fetch();
  return trusted;
}

}  // namespace

Result<TrustedManifest> VerifyAnnouncedManifest(
    std::string manifest, Fetcher* fetcher, ObjectFetcher* objects,
    const std::string& fqrn, const std::vector<PublicKey>& master_keys,
    time_t now, const Blacklist* blacklist) {
  ServerSource source(fetcher, objects);
  source.Announce(std::move(manifest));
  return Verify(&source, fqrn, master_keys, now, blacklist);
}

Result<TrustedManifest> FetchTrustedManifest(
    Fetcher* fetcher, ObjectFetcher* objects, const std::string& fqrn,
    const std::vector<PublicKey>& master_keys, time_t now,
    const Blacklist* blacklist) {
  ServerSource source(fetcher, objects);
  return Verify(&source, fqrn, master_keys, now, blacklist);
}

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
