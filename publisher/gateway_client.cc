#include "publisher/gateway_client.h"

#include <curl/curl.h>

#include <memory>
#include <nlohmann/json.hpp>

namespace publisher {

namespace {

using nlohmann::json;

struct CurlDeleter {
  void operator()(CURL* c) const { curl_easy_cleanup(c); }
};
struct SlistDeleter {
  void operator()(curl_slist* l) const { curl_slist_free_all(l); }
};

size_t Collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

// The answer as a JSON object, with "status" "ok", or the error it names.
cvmfs::Result<json> Answer(const std::string& what, const std::string& body) {
  json j = json::parse(body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object())
    return cvmfs::Status::Corruption(what + ": the gateway answered no JSON");
  auto status = j.find("status");
  if (status != j.end() && status->is_string() && *status == "ok") return j;
  std::string reason = j.value("reason", std::string("unknown error"));
  if (reason == "invalid_token" || reason == "lease_expired")
    return cvmfs::Status::NotFound(what + ": " + reason);
  return cvmfs::Status::InvalidArgument(what + ": " + reason);
}

}  // namespace

cvmfs::Result<std::string> GatewayClient::Request(
    const std::string& method, const std::string& path, const std::string& body,
    const std::string& hmac_input, const std::string& extra_header) {
  std::unique_ptr<CURL, CurlDeleter> curl(curl_easy_init());
  if (!curl) return cvmfs::Status::IoError("curl_easy_init failed");
  std::string url = api_url_ + path;
  std::string auth =
      "Authorization: " + cvmfs::GatewayAuthorization(key_, hmac_input);
  curl_slist* raw = curl_slist_append(nullptr, auth.c_str());
  if (!extra_header.empty()) raw = curl_slist_append(raw, extra_header.c_str());
  std::unique_ptr<curl_slist, SlistDeleter> headers(raw);
  std::string answer;
  CURL* c = curl.get();
  curl_easy_setopt(c, CURLOPT_URL, url.c_str());
  curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(c, CURLOPT_HTTPHEADER, headers.get());
  curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
  // No overall timeout: a commit of a large change takes the gateway long.
  curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT, 10L);
  if (method == "POST") {
    curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.data());
    curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE,
                     static_cast<curl_off_t>(body.size()));
  }
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Collect);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, &answer);
  CURLcode rc = curl_easy_perform(c);
  if (rc != CURLE_OK)
    return cvmfs::Status::Unavailable("gateway " + url + ": " +
                                      curl_easy_strerror(rc));
  return answer;
}

cvmfs::Result<std::string> GatewayClient::AcquireLease(
    const std::string& lease_path) {
  std::string body = json{{"path", lease_path}, {"api_version", "3"}}.dump();
  CVMFS_ASSIGN_OR_RETURN(std::string answer,
                         Request("POST", "/leases", body, body, ""));
  json j = json::parse(answer, nullptr, /*allow_exceptions=*/false);
  if (j.is_object() && j.value("status", std::string()) == "path_busy") {
    std::string who = j.value("holder", std::string());
    return cvmfs::Status::Busy(
        lease_path + " is leased" +
        (who.empty() ? ""
                     : " by " + who + " (" +
                           j.value("lease_path", std::string()) + ")") +
        ", time remaining " + j.value("time_remaining", std::string("?")));
  }
  CVMFS_ASSIGN_OR_RETURN(json ok, Answer("lease " + lease_path, answer));
  auto token = ok.find("session_token");
  if (token == ok.end() || !token->is_string())
    return cvmfs::Status::Corruption("lease: no session_token in the answer");
  return token->get<std::string>();
}

cvmfs::Status GatewayClient::SubmitPack(const std::string& token,
                                        const cvmfs::ObjectPackBuilder& pack,
                                        cvmfs::HashAlgorithm algorithm) {
  std::string header = pack.Header();
  std::string msg = json{
      {"payload_digest", cvmfs::HashString(algorithm, header).ToString()},
      {"header_size", std::to_string(header.size())},
      {"api_version",
       "3"}}.dump();
  CVMFS_ASSIGN_OR_RETURN(
      std::string answer,
      Request("POST", "/payloads/" + token, msg + pack.Serialize(), token,
              "message-size: " + std::to_string(msg.size())));
  return Answer("payload", answer).status();
}

cvmfs::Result<uint64_t> GatewayClient::Commit(
    const std::string& token, const cvmfs::Digest& old_root,
    const cvmfs::Digest& new_root, const std::string& tag_name,
    const std::string& tag_description) {
  std::string body = json{
      {"old_root_hash", old_root.ToString()},
      {"new_root_hash", new_root.ToString()},
      {"tag_name", tag_name},
      {"tag_description",
       tag_description}}.dump();
  CVMFS_ASSIGN_OR_RETURN(std::string answer,
                         Request("POST", "/leases/" + token, body, token, ""));
  CVMFS_ASSIGN_OR_RETURN(json ok, Answer("commit", answer));
  auto rev = ok.find("final_revision");
  if (rev == ok.end() || !rev->is_number_unsigned())
    return cvmfs::Status::Corruption("commit: no final_revision");
  return rev->get<uint64_t>();
}

cvmfs::Status GatewayClient::DropLease(const std::string& token) {
  CVMFS_ASSIGN_OR_RETURN(std::string answer,
                         Request("DELETE", "/leases/" + token, "", token, ""));
  return Answer("drop lease", answer).status();
}

}  // namespace publisher
