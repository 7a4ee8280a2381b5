// cvmfs_config showconfig: the effective configuration of a repository,
// each value with the file it came from, as CVMFS prints it; without -s the
// well-known parameters that are not set are listed too (as "NAME=").
#include <algorithm>
#include <set>

#include "client/tools/config_tool.h"
#include "client/tools/repository_config.h"

namespace cvmfs::tools {

namespace {

// CVMFS's parm_list and switch_list: shown even when unset.
constexpr const char* kShownParameters[] = {"CVMFS_USER",
                                            "CVMFS_NFILES",
                                            "CVMFS_CACHE_BASE",
                                            "CVMFS_MOUNT_DIR",
                                            "CVMFS_QUOTA_LIMIT",
                                            "CVMFS_SERVER_URL",
                                            "CVMFS_DEBUGLOG",
                                            "CVMFS_HTTP_PROXY",
                                            "CVMFS_SYSLOG_LEVEL",
                                            "CVMFS_SYSLOG_FACILITY",
                                            "CVMFS_TRACEFILE",
                                            "CVMFS_TIMEOUT",
                                            "CVMFS_TIMEOUT_DIRECT",
                                            "CVMFS_PUBLIC_KEY",
                                            "CVMFS_KEYS_DIR",
                                            "CVMFS_MAX_TTL",
                                            "CVMFS_RELOAD_SOCKETS",
                                            "CVMFS_DEFAULT_DOMAIN",
                                            "CVMFS_MEMCACHE_SIZE",
                                            "CVMFS_KCACHE_TIMEOUT",
                                            "CVMFS_ROOT_HASH",
                                            "CVMFS_REPOSITORY_TAG",
                                            "CVMFS_REPOSITORY_DATE",
                                            "CVMFS_REPOSITORIES",
                                            "CVMFS_PROXY_RESET_AFTER",
                                            "CVMFS_HOST_RESET_AFTER",
                                            "CVMFS_MAX_RETRIES",
                                            "CVMFS_BACKOFF_INIT",
                                            "CVMFS_BACKOFF_MAX",
                                            "CVMFS_ALIEN_CACHE",
                                            "CVMFS_CONFIG_REPOSITORY",
                                            "CVMFS_LOW_SPEED_LIMIT",
                                            "CVMFS_FALLBACK_PROXY",
                                            "CVMFS_FOLLOW_REDIRECTS",
                                            "CVMFS_IPFAMILY_PREFER",
                                            "CVMFS_WORKSPACE",
                                            "CVMFS_CLIENT_PROFILE",
                                            "CVMFS_STRICT_MOUNT",
                                            "CVMFS_SHARED_CACHE",
                                            "CVMFS_NFS_SOURCE",
                                            "CVMFS_CHECK_PERMISSIONS",
                                            "CVMFS_AUTO_UPDATE",
                                            "CVMFS_SEND_INFO_HEADER",
                                            "CVMFS_USE_GEOAPI",
                                            "CVMFS_CLAIM_OWNERSHIP",
                                            "CVMFS_HIDE_MAGIC_XATTRS"};

std::string Substituted(std::string value, const std::string& fqrn) {
  const std::string org = fqrn.substr(0, fqrn.find('.'));
  for (const auto& [key, with] : {std::make_pair(std::string("@fqrn@"), fqrn),
                                  std::make_pair(std::string("@org@"), org)}) {
    for (size_t pos = 0; (pos = value.find(key, pos)) != std::string::npos;
         pos += with.size())
      value.replace(pos, key.size(), with);
  }
  return value;
}

int ShowOne(const ConfigToolEnv& env, const std::string& fqrn,
            bool short_output) {
  auto config = LoadRepositoryConfig(env.paths, fqrn);
  if (!config.ok()) {
    *env.err << "Failed to read CernVM-FS configuration of " << fqrn << ": "
             << config.status().message() << "\n";
    return 1;
  }
  std::set<std::string> names(std::begin(kShownParameters),
                              std::end(kShownParameters));
  for (const std::string& n : config->options.Names())
    if (n.compare(0, 6, "CVMFS_") == 0) names.insert(n);
  *env.out << "CVMFS_REPOSITORY_NAME=" << fqrn << "\n";
  *env.out << "CVMFS_CACHE_DIR=" << config->cache_dir << "\n";
  for (const std::string& n : names) {
    auto value = config->options.Get(n);
    if (!value || value->empty()) {
      if (!short_output) *env.out << n << "=\n";
      continue;
    }
    *env.out << n << "=" << Substituted(*value, fqrn) << "    # from "
             << config->options.GetSource(n).value_or("?") << "\n";
  }
  for (const std::string& w : config->options.warnings())
    *env.err << "Warning: " << w << "\n";
  if (!config->settings)
    *env.err << "Warning: the configuration of " << fqrn
             << " does not mount: " << config->settings_error.message() << "\n";
  return 0;
}

}  // namespace

int RunShowConfig(const ConfigToolEnv& env, const Args& args) {
  bool short_output = false;
  std::vector<std::string> repos;
  for (const std::string& a : args) {
    if (a == "-s") {
      short_output = true;
    } else {
      repos.push_back(a);
    }
  }
  auto global = LoadGlobalOptions(env.paths);
  if (!global.ok()) {
    *env.err << "Failed to read CernVM-FS configuration: "
             << global.status().message() << "\n";
    return 1;
  }
  if (!repos.empty()) {
    int rc = 0;
    for (const std::string& r : repos)
      rc |= ShowOne(env, MakeFqrn(r, *global), short_output);
    return rc;
  }
  auto known = KnownRepositories(env);
  if (!known.ok()) return 1;
  int rc = 0;
  for (const std::string& fqrn : *known) {
    *env.out << "\nRunning cvmfs_config showconfig "
             << (short_output ? "-s " : "") << fqrn << ":\n";
    rc |= ShowOne(env, fqrn, short_output);
  }
  return rc;
}

}  // namespace cvmfs::tools
