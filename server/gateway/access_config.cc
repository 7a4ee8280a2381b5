#include "server/gateway/access_config.h"

#include <nlohmann/json.hpp>

#include "publisher/lease_path.h"

namespace gateway {

namespace {

using nlohmann::json;

cvmfs::Status Bad(const std::string& what) {
  return cvmfs::Status::InvalidArgument("repo.json: " + what);
}

std::string StringField(const json& o, const char* name) {
  auto it = o.find(name);
  return it != o.end() && it->is_string() ? it->get<std::string>() : "";
}

bool BoolField(const json& o, const char* name) {
  auto it = o.find(name);
  return it != o.end() && it->is_boolean() && it->get<bool>();
}

// Imports one "keys" entry; returns its id, fills `*path` (v1 subpath).
cvmfs::Result<std::string> ImportKey(const json& spec,
                                     const KeyFileReader& read_key,
                                     AccessConfig* config, std::string* path) {
  if (!spec.is_object()) return Bad("a key entry is not an object");
  std::string type = StringField(spec, "type");
  cvmfs::GatewayKey key;
  if (type == "plain_text") {
    key.id = StringField(spec, "id");
    key.secret = StringField(spec, "secret");
    if (key.id.empty() || key.secret.empty())
      return Bad("plain_text key without id or secret");
  } else if (type == "file") {
    std::string file = StringField(spec, "file_name");
    if (file.empty()) return Bad("file key without file_name");
    CVMFS_ASSIGN_OR_RETURN(key, read_key(file));
  } else {
    return Bad("unknown key type '" + type + "'");
  }
  *path = StringField(spec, "repo_subpath");
  config->keys[key.id] = KeyAccess{key.secret, BoolField(spec, "admin")};
  return key.id;
}

}  // namespace

cvmfs::Status AccessConfig::Check(const std::string& key_id,
                                  const std::string& fqrn,
                                  const std::string& path) const {
  auto repo = repos.find(fqrn);
  if (repo == repos.end()) return cvmfs::Status::Permission("invalid_repo");
  auto key = repo->second.key_paths.find(key_id);
  if (key == repo->second.key_paths.end() || !keys.count(key_id))
    return cvmfs::Status::Permission("invalid_key");
  if (!publisher::IsAtOrBelow(path, key->second))
    return cvmfs::Status::Permission("invalid_path");
  return cvmfs::Status::Ok();
}

cvmfs::Result<AccessConfig> ParseAccessConfig(const std::string& text,
                                              const std::string& keys_dir,
                                              const KeyFileReader& read_key) {
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object()) return Bad("not a JSON object");
  int version = 1;
  if (auto v = doc.find("version"); v != doc.end() && v->is_number_integer())
    version = v->get<int>();
  AccessConfig config;
  std::map<std::string, std::string> v1_paths;
  if (auto keys = doc.find("keys"); keys != doc.end()) {
    if (!keys->is_array()) return Bad("keys is not a list");
    for (const json& spec : *keys) {
      std::string path;
      CVMFS_ASSIGN_OR_RETURN(std::string id,
                             ImportKey(spec, read_key, &config, &path));
      v1_paths[id] = path.empty() ? "/" : path;
    }
  }
  auto repos = doc.find("repos");
  if (repos == doc.end()) return config;
  if (!repos->is_array()) return Bad("repos is not a list");
  for (const json& r : *repos) {
    RepositoryAccess access;
    std::string fqrn;
    if (r.is_string()) {
      fqrn = r.get<std::string>();
      std::string file = keys_dir + "/" + fqrn + ".gw";
      CVMFS_ASSIGN_OR_RETURN(cvmfs::GatewayKey key, read_key(file));
      if (!config.keys.count(key.id)) config.keys[key.id] = {key.secret, false};
      access.key_paths[key.id] = "/";
    } else if (r.is_object()) {
      fqrn = StringField(r, "domain");
      auto keys = r.find("keys");
      if (keys == r.end() || !keys->is_array())
        return Bad("repository '" + fqrn + "' without a keys list");
      for (const json& k : *keys) {
        if (version == 1 && k.is_string()) {
          std::string id = k.get<std::string>();
          access.key_paths[id] = v1_paths.count(id) ? v1_paths[id] : "/";
        } else if (k.is_object()) {
          std::string id = StringField(k, "id");
          std::string path = StringField(k, "path");
          if (!path.empty() && path[0] == '/') path.erase(0, 1);
          CVMFS_ASSIGN_OR_RETURN(publisher::LeasePath lp,
                                 publisher::ParseLeasePath(fqrn + "/" + path));
          access.key_paths[id] = lp.path;
        } else {
          return Bad("bad key entry of repository '" + fqrn + "'");
        }
      }
    } else {
      return Bad("a repos entry is neither a name nor an object");
    }
    if (fqrn.empty()) return Bad("repository without a name");
    config.repos[fqrn] = std::move(access);
  }
  return config;
}

cvmfs::Result<GatewaySettings> ParseGatewaySettings(const std::string& text) {
  GatewaySettings s;
  json doc = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (doc.is_discarded() || !doc.is_object())
    return cvmfs::Status::InvalidArgument("user.json: not a JSON object");
  for (const char* name : {"fe_tcp_port", "port"}) {
    auto it = doc.find(name);
    if (it == doc.end()) continue;
    if (!it->is_number_integer() || it->get<int64_t>() <= 0 ||
        it->get<int64_t>() > 65535)
      return cvmfs::Status::InvalidArgument("user.json: bad " +
                                            std::string(name));
    s.port = it->get<int>();
  }
  if (auto it = doc.find("max_lease_time"); it != doc.end()) {
    if (!it->is_number_integer() || it->get<int64_t>() <= 0)
      return cvmfs::Status::InvalidArgument("user.json: bad max_lease_time");
    s.max_lease_time_s = it->get<int64_t>();
  }
  if (auto it = doc.find("log_level"); it != doc.end() && it->is_string())
    s.log_level = it->get<std::string>();
  if (auto it = doc.find("work_dir"); it != doc.end() && it->is_string())
    s.work_dir = it->get<std::string>();
  return s;
}

}  // namespace gateway
