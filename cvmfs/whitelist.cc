#include "cvmfs/whitelist.h"

#include <cctype>
#include <cstdio>

namespace cvmfs {

namespace {

constexpr int64_t kSecondsPerHour = 3600;
constexpr int64_t kSecondsPerDay = 24 * kSecondsPerHour;

int64_t FloorHour(int64_t t) {
  int64_t h = t / kSecondsPerHour;
  return (t % kSecondsPerHour < 0) ? h - 1 : h;
}

std::string Excerpt(std::string_view s) {
  std::string out;
  for (char c : s.substr(0, 40)) {
    out.push_back(std::isprint(static_cast<unsigned char>(c)) ? c : '?');
  }
  if (s.size() > 40) out += "...";
  return out;
}

// Splits `text` into lines; the last line may lack its '\n'.
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> lines;
  while (!text.empty()) {
    size_t eol = text.find('\n');
    lines.push_back(text.substr(0, eol));
    if (eol == std::string_view::npos) break;
    text.remove_prefix(eol + 1);
  }
  return lines;
}

}  // namespace

std::string FormatWhitelistTime(time_t t) {
  struct tm tm {};
  if (gmtime_r(&t, &tm) == nullptr) return "";
  char buf[64];
  std::snprintf(buf, sizeof(buf), "%04d%02d%02d%02d%02d%02d", tm.tm_year + 1900,
                tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
  return buf;
}

Result<time_t> ParseWhitelistTime(std::string_view text) {
  const Status bad =
      Status::Corruption("whitelist: malformed timestamp '" + Excerpt(text) +
                         "' (expected YYYYMMDDhhmmss)");
  if (text.size() != 14) return bad;
  for (char c : text) {
    if (c < '0' || c > '9') return bad;
  }
  auto num = [text](size_t pos, size_t len) {
    int v = 0;
    for (size_t i = pos; i < pos + len; ++i) v = v * 10 + (text[i] - '0');
    return v;
  };
  struct tm tm {};
  tm.tm_year = num(0, 4) - 1900;
  tm.tm_mon = num(4, 2) - 1;
  tm.tm_mday = num(6, 2);
  tm.tm_hour = num(8, 2);
  tm.tm_min = num(10, 2);
  tm.tm_sec = num(12, 2);
  struct tm check = tm;
  time_t t = timegm(&check);
  // timegm normalizes out-of-range fields (Feb 30 -> Mar 2); refuse those.
  if (check.tm_year != tm.tm_year || check.tm_mon != tm.tm_mon ||
      check.tm_mday != tm.tm_mday || check.tm_hour != tm.tm_hour ||
      check.tm_min != tm.tm_min || check.tm_sec != tm.tm_sec)
    return bad;
  return t;
}

Whitelist Whitelist::Create(const std::string& fqrn,
                            const std::string& fingerprint, time_t now,
                            int days) {
  Whitelist w;
  w.created = now;
  w.expires = static_cast<time_t>(static_cast<int64_t>(now) +
                                  static_cast<int64_t>(days) * kSecondsPerDay);
  w.fqrn = fqrn;
  w.fingerprints.push_back(fingerprint);
  return w;
}

std::string Whitelist::ExportText() const {
  std::string out = FormatWhitelistTime(created) + "\n";
  out += "E" + FormatWhitelistTime(expires) + "\n";
  out += "N" + fqrn + "\n";
  if (requires_pkcs7) out += "Vpkcs7\n";
  if (requires_ca_chain) out += "Wcachain\n";
  for (const std::string& fp : fingerprints) out += fp + "\n";
  return out;
}

Result<SignedWhitelist> Whitelist::Parse(std::string_view file) {
  auto letter = SplitLetter(file);
  if (!letter.ok()) return letter.status().Annotate("whitelist");
  std::vector<std::string_view> lines = Lines(letter->text);
  if (lines.empty() || lines[0].size() != 14)
    return Status::Corruption(
        "not a CernVM-FS whitelist (first line is not a YYYYMMDDhhmmss "
        "timestamp: '" +
        Excerpt(lines.empty() ? file : lines[0]) + "')");

  SignedWhitelist result;
  Whitelist& w = result.whitelist;
  CVMFS_ASSIGN_OR_RETURN(w.created, ParseWhitelistTime(lines[0]));
  if (lines.size() < 2 || lines[1].size() != 15 || lines[1][0] != 'E')
    return Status::Corruption(
        "whitelist: second line is not the expiry "
        "EYYYYMMDDhhmmss");
  CVMFS_ASSIGN_OR_RETURN(w.expires, ParseWhitelistTime(lines[1].substr(1)));
  if (lines.size() < 3 || lines[2].size() < 2 || lines[2][0] != 'N')
    return Status::Corruption("whitelist: third line is not N<fqrn>");
  w.fqrn = std::string(lines[2].substr(1));

  size_t i = 3;
  if (i < lines.size() && lines[i] == "Vpkcs7") {
    w.requires_pkcs7 = true;
    ++i;
  }
  if (i < lines.size() && lines[i] == "Wcachain") {
    w.requires_ca_chain = true;
    ++i;
  }
  for (; i < lines.size(); ++i) {
    auto digest = ParseFingerprint(lines[i]);
    if (digest.ok()) w.fingerprints.push_back(FormatFingerprint(*digest));
  }

  result.text = std::string(letter->text);
  result.hash_line = std::string(letter->hash_line);
  result.signature = std::string(letter->signature);
  return result;
}

bool Whitelist::IsExpired(time_t now) const {
  return FloorHour(static_cast<int64_t>(now)) >=
         FloorHour(static_cast<int64_t>(expires));
}

bool Whitelist::ListsFingerprint(std::string_view fp) const {
  auto wanted = ParseFingerprint(fp);
  if (!wanted.ok()) return false;
  for (const std::string& listed : fingerprints) {
    auto digest = ParseFingerprint(listed);
    if (digest.ok() && *digest == *wanted) return true;
  }
  return false;
}

bool Whitelist::ListsCertificate(const Certificate& cert) const {
  std::string der = cert.Der();
  for (const std::string& listed : fingerprints) {
    auto digest = ParseFingerprint(listed);
    if (digest.ok() && HashString(digest->algorithm, der) == *digest)
      return true;
  }
  return false;
}

Result<std::string> SignWhitelist(const Whitelist& whitelist,
                                  const PrivateKey& master,
                                  HashAlgorithm algo) {
  if (algo == HashAlgorithm::kMd5)
    return Status::InvalidArgument("whitelist hash must not be MD5");
  std::string text = whitelist.ExportText();
  std::string hash_line = HashString(algo, text).ToString();
  CVMFS_ASSIGN_OR_RETURN(std::string signature, SignRaw(master, hash_line));
  text.append("--\n").append(hash_line).append("\n").append(signature);
  return text;
}

Status VerifyWhitelist(const SignedWhitelist& whitelist,
                       const std::vector<PublicKey>& master_keys) {
  if (whitelist.hash_line.empty() && whitelist.signature.empty())
    return Status::Corruption("whitelist is not signed");
  auto digest =
      CheckLetterHash(whitelist.text, whitelist.hash_line, "whitelist");
  if (!digest.ok()) return digest.status();
  if (master_keys.empty())
    return Status::InvalidArgument("no master public key to verify with");
  for (const PublicKey& key : master_keys) {
    if (VerifyRaw(key, whitelist.hash_line, whitelist.signature))
      return Status::Ok();
  }
  return Status::Corruption("whitelist signature does not verify with any of " +
                            std::to_string(master_keys.size()) +
                            " master key(s)");
}

}  // namespace cvmfs
