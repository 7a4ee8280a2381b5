#include "client/tools/repository_config.h"

#include <algorithm>
#include <sstream>

#include "client/talk/talk_socket.h"
#include "cvmfs/config/option_reader.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

std::string OptionOr(const OptionsManager& o, const std::string& name,
                     const std::string& def) {
  auto v = o.Get(name);
  return v && !v->empty() ? *v : def;
}

// The cache directory as cvmfs2 would choose it, from the raw options (for
// a configuration that does not pass ClientSettings' checks).
std::string RawCacheDir(const OptionsManager& o, const SystemPaths& paths,
                        const std::string& fqrn) {
  std::string base = OptionOr(o, "CVMFS_CACHE_BASE", paths.VarLibCvmfs());
  while (base.size() > 1 && base.back() == '/') base.pop_back();
  bool shared =
      ParseBoolean(OptionOr(o, "CVMFS_SHARED_CACHE", "yes")).value_or(true);
  return JoinPath(base, shared ? "shared" : fqrn);
}

}  // namespace

Result<RepositoryConfig> LoadRepositoryConfig(const SystemPaths& paths,
                                              const std::string& fqrn) {
  RepositoryConfig rc;
  rc.fqrn = fqrn;
  AutofsReach reach;  // mounts the configuration repository if need be
  CVMFS_RETURN_IF_ERROR(rc.options.LoadForRepository(paths, fqrn, &reach));
  auto settings = ClientSettings::FromOptions(rc.options, fqrn, paths);
  if (settings.ok()) {
    rc.settings = std::move(settings).value();
    rc.cache_dir = rc.settings->CacheDir();
  } else {
    rc.settings_error = settings.status();
    rc.cache_dir = RawCacheDir(rc.options, paths, fqrn);
  }
  rc.socket = client::TalkSocketPath(rc.cache_dir, fqrn);
  rc.mountpoint = JoinPath(MountDir(rc.options, paths), fqrn);
  return rc;
}

Result<OptionsManager> LoadGlobalOptions(const SystemPaths& paths) {
  OptionsManager options;
  const std::string etc = paths.EtcCvmfs();
  std::vector<std::string> files = {JoinPath(etc, "default.conf")};
  auto names = ListDirectory(JoinPath(etc, "default.d"));
  if (names.ok()) {
    std::vector<std::string> sorted = *names;
    std::sort(sorted.begin(), sorted.end());
    for (const std::string& n : sorted)
      if (n.size() > 5 && n.compare(n.size() - 5, 5, ".conf") == 0)
        files.push_back(JoinPath(etc, "default.d/" + n));
  }
  for (const std::string& f : files) {
    if (!PathExists(f)) continue;
    CVMFS_RETURN_IF_ERROR(options.ParseFile(f, "", paths));
  }
  // As in LoadForRepository: default.local cannot change it.
  options.Protect("CVMFS_CONFIG_REPOSITORY");
  const std::string local = JoinPath(etc, "default.local");
  if (PathExists(local))
    CVMFS_RETURN_IF_ERROR(options.ParseFile(local, "", paths));
  return options;
}

std::vector<std::string> ConfiguredRepositories(const OptionsManager& global) {
  std::string list = global.Get("CVMFS_REPOSITORIES").value_or("");
  std::replace(list.begin(), list.end(), ',', ' ');
  std::istringstream in(list);
  std::vector<std::string> out;
  std::string name;
  while (in >> name) {
    name = MakeFqrn(name, global);
    if (std::find(out.begin(), out.end(), name) == out.end())
      out.push_back(name);
  }
  return out;
}

std::string MakeFqrn(const std::string& name, const OptionsManager& global) {
  std::string domain = global.Get("CVMFS_DEFAULT_DOMAIN").value_or("");
  if (name.find('.') != std::string::npos || domain.empty()) return name;
  return name + "." + domain;
}

std::string MountDir(const OptionsManager& options, const SystemPaths& paths) {
  std::string dir = OptionOr(options, "CVMFS_MOUNT_DIR", paths.MountRoot());
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

}  // namespace cvmfs::tools
