#include "cvmfs/bundle.h"

#include <algorithm>
#include <set>

#include "cvmfs/text.h"

namespace cvmfs {

uint64_t BundlePlan::member_bytes() const {
  uint64_t total = 0;
  for (const BundleMember& m : members) total += m.size;
  return total;
}

std::vector<BundlePlan> PlanBundles(std::vector<BundleCandidate> candidates) {
  std::sort(candidates.begin(), candidates.end(),
            [](const BundleCandidate& a, const BundleCandidate& b) {
              return a.name < b.name;
            });
  std::vector<const BundleCandidate*> taken;
  std::set<Digest> seen;
  for (const BundleCandidate& c : candidates) {
    if (c.stored_size == 0 || c.stored_size > kBundleMemberMax) continue;
    if (!seen.insert(c.digest).second) continue;
    taken.push_back(&c);
  }
  std::vector<BundlePlan> plans;
  if (taken.size() < kBundleMinMembers) return plans;
  uint64_t bytes = 0;
  for (const BundleCandidate* c : taken) {
    if (plans.empty() || bytes + c->stored_size > kBundleTargetBytes ||
        plans.back().members.size() >= kBundleMaxMembers) {
      plans.push_back(BundlePlan{c->name, {}});
      bytes = 0;
    }
    plans.back().members.push_back(BundleMember{c->digest, c->stored_size});
    bytes += c->stored_size;
  }
  return plans;
}

std::string SerializeBundleHeader(const std::vector<BundleMember>& members) {
  std::string out = std::string(kBundleMagic) + " " +
                    std::to_string(kBundleVersion) + "\n" +
                    std::to_string(members.size()) + "\n";
  for (const BundleMember& m : members)
    out += m.digest.ToString() + " " + std::to_string(m.size) + "\n";
  out += "\n";
  return out;
}

const BundleRef* FindCoveringBundle(const std::vector<BundleRef>& rows,
                                    std::string_view name) {
  auto it = std::upper_bound(
      rows.begin(), rows.end(), name,
      [](std::string_view n, const BundleRef& r) { return n < r.first_name; });
  if (it == rows.begin()) return nullptr;
  return &*std::prev(it);
}

BundleReader::BundleReader(HashAlgorithm algorithm, Visitor* visitor)
    : algorithm_(algorithm), visitor_(visitor), hasher_(algorithm) {}

namespace {

// The longest a header may be: magic and count lines, then one line per
// member (a 40-hex digest, an algorithm id and a size fit in 64 bytes).
size_t MaxHeaderBytes(size_t members) { return 64 + 64 * members; }

}  // namespace

Status BundleReader::ParseHeader() {
  // header_ holds everything up to and including the "\n\n" that ends it.
  std::vector<std::string_view> lines;
  std::string_view rest(header_);
  rest.remove_suffix(1);  // the empty line's newline
  while (!rest.empty()) {
    size_t nl = rest.find('\n');
    lines.push_back(rest.substr(0, nl));
    rest.remove_prefix(nl + 1);
  }
  const std::string magic =
      std::string(kBundleMagic) + " " + std::to_string(kBundleVersion);
  if (lines.empty() || lines[0] != magic) {
    return Status::Corruption("bundle: first line is not '" + magic + "'");
  }
  if (lines.size() < 2) return Status::Corruption("bundle: no member count");
  std::optional<uint64_t> n = ParseUint64(lines[1], 4);
  if (!n || *n == 0 || *n > kBundleMaxMembers ||
      std::to_string(*n) != lines[1]) {
    return Status::Corruption("bundle: bad member count '" +
                              std::string(lines[1]) + "'");
  }
  if (lines.size() != *n + 2) {
    return Status::Corruption("bundle: " + std::to_string(*n) +
                              " members announced, " +
                              std::to_string(lines.size() - 2) + " listed");
  }
  if (header_.size() > MaxHeaderBytes(*n))
    return Status::Corruption("bundle: header too long");
  for (size_t i = 2; i < lines.size(); ++i) {
    const std::string where = "bundle member " + std::to_string(i - 1) + ": ";
    std::string_view line = lines[i];
    size_t space = line.find(' ');
    if (space == std::string_view::npos)
      return Status::Corruption(where + "no size");
    Result<Digest> digest = Digest::Parse(line.substr(0, space));
    if (!digest.ok())
      return Status::Corruption(where + digest.status().message());
    if (digest->ToString() != line.substr(0, space)) {
      return Status::Corruption(where + "digest not in canonical form '" +
                                std::string(line.substr(0, space)) + "'");
    }
    if (digest->algorithm != algorithm_) {
      return Status::Corruption(where + "digest algorithm is not " +
                                std::string(AlgorithmName(algorithm_)));
    }
    std::optional<uint64_t> size = ParseUint64(line.substr(space + 1), 9);
    if (!size || *size == 0 || *size > kBundleMaxMemberSize ||
        std::to_string(*size) != line.substr(space + 1)) {
      return Status::Corruption(where + "bad size '" +
                                std::string(line.substr(space + 1)) + "'");
    }
    members_.push_back(BundleMember{*digest, *size});
  }
  header_.clear();
  header_.shrink_to_fit();
  in_body_ = true;
  member_ = 0;
  member_left_ = members_[0].size;
  return Status::Ok();
}

Status BundleReader::FeedBody(const char* data, size_t size) {
  while (size > 0) {
    if (member_ >= members_.size())
      return Status::Corruption("bundle: bytes after the last member");
    if (!member_open_) {
      CVMFS_RETURN_IF_ERROR(visitor_->BeginMember(members_[member_]));
      member_open_ = true;
    }
    size_t n = static_cast<size_t>(std::min<uint64_t>(member_left_, size));
    CVMFS_RETURN_IF_ERROR(visitor_->MemberData(data, n));
    data += n;
    size -= n;
    member_left_ -= n;
    if (member_left_ == 0) {
      CVMFS_RETURN_IF_ERROR(visitor_->EndMember());
      member_open_ = false;
      ++member_;
      if (member_ < members_.size()) member_left_ = members_[member_].size;
    }
  }
  return Status::Ok();
}

Status BundleReader::Feed(const void* data, size_t size) {
  hasher_.Update(data, size);
  const char* p = static_cast<const char*>(data);
  if (!in_body_) {
    // Append up to the end of the header ("\n\n"), bounded.
    size_t limit = MaxHeaderBytes(kBundleMaxMembers);
    size_t i = 0;
    for (; i < size && !in_body_; ++i) {
      header_.push_back(p[i]);
      size_t len = header_.size();
      if (len >= 2 && header_[len - 1] == '\n' && header_[len - 2] == '\n') {
        CVMFS_RETURN_IF_ERROR(ParseHeader());
      } else if (len > limit) {
        return Status::Corruption("bundle: header too long");
      }
    }
    p += i;
    size -= i;
    if (!in_body_) return Status::Ok();
  }
  return FeedBody(p, size);
}

Status BundleReader::Finish() {
  if (!in_body_) return Status::Corruption("bundle: truncated header");
  if (member_ < members_.size()) {
    return Status::Corruption("bundle: truncated in member " +
                              std::to_string(member_ + 1) + " of " +
                              std::to_string(members_.size()));
  }
  digest_ = hasher_.Finish();
  return Status::Ok();
}

}  // namespace cvmfs
