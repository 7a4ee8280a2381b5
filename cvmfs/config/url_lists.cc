#include "cvmfs/config/url_lists.h"

#include "cvmfs/text.h"

namespace cvmfs {
namespace {

// Splits at any of `separators`, trims, drops empty pieces.
std::vector<std::string> Split(const std::string& text,
                               const std::string& separators) {
  std::vector<std::string> pieces;
  for (const std::string& piece : SplitNonEmpty(text, separators)) {
    std::string_view trimmed = Trim(piece, " \t\n");
    if (!trimmed.empty()) pieces.emplace_back(trimmed);
  }
  return pieces;
}

std::string ReplaceAll(std::string s, const std::string& from,
                       const std::string& to) {
  for (size_t pos = 0; (pos = s.find(from, pos)) != std::string::npos;
       pos += to.size()) {
    s.replace(pos, from.size(), to);
  }
  return s;
}

bool HasPrefix(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

bool HasHostPart(const std::string& url, const std::string& scheme) {
  return url.size() > scheme.size() && url[scheme.size()] != '/';
}

bool HasBlank(const std::string& s) {
  return s.find_first_of(" \t\n") != std::string::npos;
}

}  // namespace

Result<std::vector<std::string>> ParseServerUrls(const std::string& text,
                                                 const std::string& fqrn,
                                                 const std::string& org) {
  std::vector<std::string> urls;
  for (std::string url : Split(text, ";,")) {
    url = ReplaceAll(ReplaceAll(url, "@fqrn@", fqrn), "@org@", org);
    while (url.size() > 1 && url.back() == '/') url.pop_back();
    bool http = (HasPrefix(url, "http://") && HasHostPart(url, "http://")) ||
                (HasPrefix(url, "https://") && HasHostPart(url, "https://"));
    if ((!http && !HasPrefix(url, "file:///")) || HasBlank(url)) {
      return Status::InvalidArgument("'" + url +
                                     "' is not an http://, https:// or "
                                     "file:// URL");
    }
    urls.push_back(std::move(url));
  }
  return urls;
}

Result<std::vector<std::vector<std::string>>> ParseProxyGroups(
    const std::string& text) {
  std::vector<std::vector<std::string>> groups;
  for (const std::string& group_text : Split(text, ";")) {
    std::vector<std::string> group = Split(group_text, "|");
    for (const std::string& member : group) {
      bool ok = member == kDirectProxy || member == kAutoProxy ||
                (HasPrefix(member, "http://") &&
                 HasHostPart(member, "http://") && !HasBlank(member));
      if (!ok) {
        return Status::InvalidArgument("proxy '" + member +
                                       "' is neither DIRECT, auto nor an "
                                       "http://host:port URL");
      }
    }
    if (!group.empty()) groups.push_back(std::move(group));
  }
  return groups;
}

}  // namespace cvmfs
