#include "publisher/s3_object_store.h"

#include <algorithm>
#include <thread>
#include <utility>

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

bool Retriable(const S3Response& r) {
  return r.http_code == 0 || r.http_code == 429 || r.http_code >= 500;
}

// RFC 3986 unreserved characters stay; everything else is %XX (what SigV4's
// canonical query string expects).
std::string UriEncode(std::string_view s) {
  static const char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (unsigned char c : s) {
    if (std::isalnum(c) || c == '-' || c == '_' || c == '.' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += kHex[c >> 4];
      out += kHex[c & 15];
    }
  }
  return out;
}

std::string XmlUnescape(std::string_view s) {
  static const std::pair<std::string_view, char> kEntities[] = {
      {"&amp;", '&'},
      {"&lt;", '<'},
      {"&gt;", '>'},
      {"&quot;", '"'},
      {"&apos;", '\''}};
  std::string out;
  for (size_t i = 0; i < s.size();) {
    bool replaced = false;
    if (s[i] == '&') {
      for (const auto& [entity, c] : kEntities) {
        if (s.substr(i, entity.size()) == entity) {
          out += c;
          i += entity.size();
          replaced = true;
          break;
        }
      }
    }
    if (!replaced) out += s[i++];
  }
  return out;
}

// The text of each <tag>...</tag> in `xml`, in order.
std::vector<std::string> Elements(std::string_view xml, std::string_view tag) {
  std::vector<std::string> out;
  const std::string open = "<" + std::string(tag) + ">";
  const std::string close = "</" + std::string(tag) + ">";
  size_t pos = 0;
  while ((pos = xml.find(open, pos)) != std::string_view::npos) {
    size_t begin = pos + open.size();
    size_t end = xml.find(close, begin);
    if (end == std::string_view::npos) break;
    out.push_back(XmlUnescape(xml.substr(begin, end - begin)));
    pos = end + close.size();
  }
  return out;
}

const char* MethodName(S3Request::Method m) {
  switch (m) {
    case S3Request::Method::kGet:
      return "GET";
    case S3Request::Method::kHead:
      return "HEAD";
    case S3Request::Method::kPut:
      return "PUT";
    case S3Request::Method::kDelete:
      return "DELETE";
  }
  return "?";
}

}  // namespace

Result<ListPage> ParseListObjectsV2(std::string_view xml) {
  if (xml.find("<ListBucketResult") == std::string_view::npos)
    return Status::Corruption("ListObjectsV2: not a ListBucketResult");
  ListPage page;
  page.keys = Elements(xml, "Key");
  auto truncated = Elements(xml, "IsTruncated");
  if (!truncated.empty() && truncated[0] == "true") {
    auto token = Elements(xml, "NextContinuationToken");
    if (token.empty() || token[0].empty())
      return Status::Corruption(
          "ListObjectsV2: truncated page without NextContinuationToken");
    page.next_token = token[0];
  }
  return page;
}

S3ObjectStore::S3ObjectStore(std::unique_ptr<S3Transport> transport,
                             S3StoreOptions options)
    : transport_(std::move(transport)), options_(std::move(options)) {}

std::string S3ObjectStore::Key(const std::string& name) const {
  return options_.prefix.empty() ? name : options_.prefix + "/" + name;
}

Result<S3Response> S3ObjectStore::Call(const S3Request& request) {
  std::chrono::milliseconds delay = options_.backoff_initial;
  S3Response response;
  for (unsigned attempt = 0;; ++attempt) {
    response = transport_->Send(request);
    if (!response.local_status.ok()) return response.local_status;
    if (!Retriable(response) || attempt >= options_.max_retries ||
        response.streamed > 0)
      break;
    if (options_.sleep) {
      options_.sleep(delay);
    } else {
      std::this_thread::sleep_for(delay);
    }
    delay = std::min(delay * 2, options_.backoff_max);
  }
  const std::string what = std::string(MethodName(request.method)) + " " +
                           request.key +
                           (request.query.empty() ? "" : "?" + request.query);
  const long code = response.http_code;  // NOLINT(runtime/int)
  if (code >= 200 && code < 300) return response;
  if (code == 0 && response.streamed > 0)
    return Status::Unavailable("S3 " + what + ": " + response.error +
                               " (interrupted after " +
                               std::to_string(response.streamed) + " bytes)");
  if (code == 0)
    return Status::Unavailable(
        "S3 " + what + ": " + response.error + " (after " +
        std::to_string(options_.max_retries + 1) + " attempts)");
  if (code == 404) return Status::NotFound("S3 " + what + ": 404 Not Found");
  if (code == 401 || code == 403)
    return Status::Permission(
        "S3 " + what + ": " + std::to_string(code) +
        " access denied (check CVMFS_S3_ACCESS_KEY/SECRET_KEY, the bucket's "
        "policy and CVMFS_S3_REGION)");
  return Status::Unavailable("S3 " + what + ": HTTP " + std::to_string(code) +
                             (code >= 500 ? " (after retries)" : ""));
}

bool S3ObjectStore::Exists(const std::string& name) {
  S3Request r;
  r.method = S3Request::Method::kHead;
  r.key = Key(name);
  return Call(r).ok();
}

bool S3ObjectStore::PresentDataObject(const std::string& name) {
  // Objects under data/ are named by their content: an existing one already
  // holds these bytes. Everything else (manifest, whitelist, reflog) changes.
  return options_.peek_before_put && name.rfind("data/", 0) == 0 &&
         Exists(name);
}

Status S3ObjectStore::Upload(S3Request request) {
  request.method = S3Request::Method::kPut;
  auto response = Call(request);
  return response.ok() ? Status::Ok() : response.status();
}

Status S3ObjectStore::Put(const std::string& name, std::string_view bytes) {
  if (PresentDataObject(name)) return Status::Ok();
  S3Request r;
  r.key = Key(name);
  r.body = bytes;
  return Upload(std::move(r));
}

Result<bool> S3ObjectStore::PutIfAbsent(const std::string& name,
                                        std::string_view bytes) {
  if (options_.peek_before_put && Exists(name)) return false;
  S3Request r;
  r.key = Key(name);
  r.body = bytes;
  CVMFS_RETURN_IF_ERROR(Upload(std::move(r)));
  return true;
}

Status S3ObjectStore::PutFile(const std::string& name,
                              const std::string& file) {
  if (PresentDataObject(name)) return Status::Ok();
  S3Request r;
  r.key = Key(name);
  r.body_file = file;
  return Upload(std::move(r));
}

Result<std::string> S3ObjectStore::Get(const std::string& name) {
  S3Request r;
  r.method = S3Request::Method::kGet;
  r.key = Key(name);
  auto response = Call(r);
  if (!response.ok()) return response.status();
  return std::move(response->body);
}

Status S3ObjectStore::ReadTo(const std::string& name, const Sink& sink) {
  S3Request r;
  r.method = S3Request::Method::kGet;
  r.key = Key(name);
  r.sink = &sink;
  auto response = Call(r);
  return response.ok() ? Status::Ok() : response.status();
}

Result<uint64_t> S3ObjectStore::Size(const std::string& name) {
  S3Request r;
  r.method = S3Request::Method::kHead;
  r.key = Key(name);
  CVMFS_ASSIGN_OR_RETURN(S3Response response, Call(r));
  if (response.content_length < 0)
    return Status::Unavailable("S3 HEAD " + r.key +
                               ": the answer has no Content-Length");
  return static_cast<uint64_t>(response.content_length);
}

Status S3ObjectStore::Remove(const std::string& name) {
  S3Request r;
  r.method = S3Request::Method::kDelete;
  r.key = Key(name);
  auto response = Call(r);
  return response.ok() ? Status::Ok() : response.status();
}

Result<std::vector<std::string>> S3ObjectStore::ListObjects() {
  const std::string prefix = Key("data/");
  const std::string strip =
      options_.prefix.empty() ? "" : options_.prefix + "/";
  std::vector<std::string> names;
  std::string token;
  do {
    S3Request r;
    r.method = S3Request::Method::kGet;
    r.query = "list-type=2&prefix=" + UriEncode(prefix);
    if (!token.empty())
      r.query = "continuation-token=" + UriEncode(token) + "&" + r.query;
    auto response = Call(r);
    if (!response.ok()) return response.status();
    CVMFS_ASSIGN_OR_RETURN(ListPage page, ParseListObjectsV2(response->body));
    for (std::string& key : page.keys) {
      if (key.rfind(strip, 0) != 0) continue;
      std::string name = key.substr(strip.size());
      if (name.rfind("data/txn/", 0) == 0) continue;
      names.push_back(std::move(name));
    }
    token = page.next_token;
  } while (!token.empty());
  std::sort(names.begin(), names.end());
  return names;
}

}  // namespace publisher
