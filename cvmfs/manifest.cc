#include "cvmfs/manifest.h"

#include <cctype>
#include <string>

#include "cvmfs/text.h"

namespace cvmfs {

namespace {

// Printable excerpt of untrusted bytes for error messages.
std::string Excerpt(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    unsigned char u = static_cast<unsigned char>(c);
    out.push_back(std::isprint(u) ? c : '?');
  }
  if (s.size() > 40) out += "...";
  return out;
}

Status BadValue(char key, std::string_view value, const std::string& why) {
  return Status::Corruption("manifest key " + std::string(1, key) + ": " + why +
                            " ('" + Excerpt(value) + "')");
}

Result<uint64_t> ParseUint(char key, std::string_view value) {
  if (!IsDecimal(value) || value.size() > 20)
    return BadValue(key, value, "not a decimal number");
  std::optional<uint64_t> v = ParseUint64(value);
  if (!v) return BadValue(key, value, "out of range");
  return *v;
}

Result<bool> ParseYesNo(char key, std::string_view value) {
  if (value == "yes") return true;
  if (value == "no") return false;
  return BadValue(key, value, "expected yes or no");
}

Result<Digest> ParseContentHash(char key, std::string_view value) {
  auto d = Digest::Parse(value);
  if (!d.ok() || d->algorithm == HashAlgorithm::kMd5)
    return BadValue(key, value, "malformed content hash");
  return d;
}

const char* YesNo(bool b) { return b ? "yes" : "no"; }

// Applies one key line to `m`.
Status ApplyKey(char key, std::string_view value, Manifest* m) {
  switch (key) {
    case 'C': {
      CVMFS_ASSIGN_OR_RETURN(m->root_catalog, ParseContentHash(key, value));
      return Status::Ok();
    }
    case 'B': {
      CVMFS_ASSIGN_OR_RETURN(m->catalog_size, ParseUint(key, value));
      return Status::Ok();
    }
    case 'R': {
      auto md5 = Digest::Parse(value);
      if (!md5.ok() || md5->algorithm != HashAlgorithm::kMd5)
        return BadValue(key, value, "not an MD5 hash");
      m->root_path_md5 = std::string(value);
      return Status::Ok();
    }
    case 'D': {
      CVMFS_ASSIGN_OR_RETURN(m->ttl, ParseUint(key, value));
      return Status::Ok();
    }
    case 'S': {
      CVMFS_ASSIGN_OR_RETURN(m->revision, ParseUint(key, value));
      return Status::Ok();
    }
    case 'G': {
      CVMFS_ASSIGN_OR_RETURN(m->garbage_collectable, ParseYesNo(key, value));
      return Status::Ok();
    }
    case 'A': {
      CVMFS_ASSIGN_OR_RETURN(m->has_alt_catalog_path, ParseYesNo(key, value));
      return Status::Ok();
    }
    case 'L': {
      CVMFS_ASSIGN_OR_RETURN(m->micro_catalog, ParseContentHash(key, value));
      return Status::Ok();
    }
    case 'N':
      if (value.empty()) return BadValue(key, value, "empty repository name");
      m->fqrn = std::string(value);
      return Status::Ok();
    case 'X': {
      CVMFS_ASSIGN_OR_RETURN(m->certificate, ParseContentHash(key, value));
      return Status::Ok();
    }
    case 'H': {
      CVMFS_ASSIGN_OR_RETURN(m->history, ParseContentHash(key, value));
      return Status::Ok();
    }
    case 'T': {
      CVMFS_ASSIGN_OR_RETURN(m->publish_timestamp, ParseUint(key, value));
      return Status::Ok();
    }
    case 'M': {
      CVMFS_ASSIGN_OR_RETURN(m->metainfo, ParseContentHash(key, value));
      return Status::Ok();
    }
    case 'Y': {
      CVMFS_ASSIGN_OR_RETURN(m->reflog, ParseContentHash(key, value));
      return Status::Ok();
    }
    case 'Z':
      m->channel_tips.emplace_back(value);
      return Status::Ok();
    default:
      return Status::Ok();  // unknown keys are ignored, as CVMFS does
  }
}

constexpr std::string_view kKnownKeys = "CBRDSGALNXHTMYZ";
constexpr std::string_view kRequiredKeys = "CRDS";

}  // namespace

std::string Manifest::ExportText() const {
  std::string out;
  auto line = [&out](char key, const std::string& value) {
    out.push_back(key);
    out.append(value);
    out.push_back('\n');
  };
  line('C', root_catalog.ToString());
  line('B', std::to_string(catalog_size));
  line('R', root_path_md5);
  line('D', std::to_string(ttl));
  line('S', std::to_string(revision));
  line('G', YesNo(garbage_collectable));
  line('A', YesNo(has_alt_catalog_path));
  if (micro_catalog) line('L', micro_catalog->ToString());
  if (!fqrn.empty()) line('N', fqrn);
  if (certificate) line('X', certificate->ToString());
  if (history) line('H', history->ToString());
  if (publish_timestamp) line('T', std::to_string(*publish_timestamp));
  if (metainfo) line('M', metainfo->ToString());
  if (reflog) line('Y', reflog->ToString());
  for (const std::string& tip : channel_tips) line('Z', tip);
  return out;
}

Result<SignedManifest> Manifest::Parse(std::string_view file) {
  auto letter = SplitLetter(file);
  if (!letter.ok()) return letter.status().Annotate("manifest");

  SignedManifest result;
  bool seen[128] = {};
  size_t known_lines = 0;
  std::string_view text = letter->text;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    std::string_view line = text.substr(0, eol);
    text = eol == std::string_view::npos ? std::string_view()
                                         : text.substr(eol + 1);
    if (line.empty()) continue;
    const char key = line[0];
    if (kKnownKeys.find(key) == std::string_view::npos) continue;
    ++known_lines;
    if (key != 'Z' && seen[static_cast<unsigned char>(key)])
      return Status::Corruption("manifest key " + std::string(1, key) +
                                " appears twice");
    seen[static_cast<unsigned char>(key)] = true;
    CVMFS_RETURN_IF_ERROR(ApplyKey(key, line.substr(1), &result.manifest));
  }
  if (known_lines == 0)
    return Status::Corruption("not a CernVM-FS manifest (starts with '" +
                              Excerpt(file) + "')");
  for (char key : kRequiredKeys) {
    if (!seen[static_cast<unsigned char>(key)])
      return Status::Corruption("manifest lacks required key " +
                                std::string(1, key));
  }
  result.text = std::string(letter->text);
  result.hash_line = std::string(letter->hash_line);
  result.signature = std::string(letter->signature);
  return result;
}

Result<std::string> SignManifest(const Manifest& manifest,
                                 const PrivateKey& key) {
  if (manifest.root_catalog.algorithm == HashAlgorithm::kMd5)
    return Status::InvalidArgument("root catalog hash must not be MD5");
  std::string text = manifest.ExportText();
  std::string hash_line =
      HashString(manifest.root_catalog.algorithm, text).ToString();
  CVMFS_ASSIGN_OR_RETURN(std::string signature, SignSha1(key, hash_line));
  text.append("--\n").append(hash_line).append("\n").append(signature);
  return text;
}

Status VerifyManifest(const SignedManifest& manifest,
                      const Certificate& certificate) {
  if (manifest.hash_line.empty() && manifest.signature.empty())
    return Status::Corruption("manifest is not signed");
  auto digest = CheckLetterHash(manifest.text, manifest.hash_line, "manifest");
  if (!digest.ok()) return digest.status();
  CVMFS_ASSIGN_OR_RETURN(PublicKey key, certificate.GetPublicKey());
  if (!VerifySha1(key, manifest.hash_line, manifest.signature))
    return Status::Corruption(
        "manifest signature does not verify with certificate " +
        certificate.Fingerprint());
  return Status::Ok();
}

}  // namespace cvmfs
