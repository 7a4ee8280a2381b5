#include "cvmfs/config/options_manager.h"

#include <cctype>

#include "cvmfs/config/shell_source.h"
#include "cvmfs/file_util.h"

namespace cvmfs {
namespace {

bool HasSuffix(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() &&
         s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// default.d/*.conf, sorted by name; none if the directory is missing.
std::vector<std::string> DistributionDefaults(const std::string& etc) {
  const std::string dir = JoinPath(etc, "default.d");
  std::vector<std::string> files;
  auto names = ListDirectory(dir);
  if (!names.ok()) return files;
  for (const std::string& name : *names) {
    std::string path = JoinPath(dir, name);
    if (HasSuffix(name, ".conf") && !IsDirectory(path)) files.push_back(path);
  }
  return files;
}

// CVMFS's IsOn: yes, on or 1, in any case.
bool IsOn(std::string value) {
  for (char& c : value) c = static_cast<char>(std::tolower(c));
  return value == "yes" || value == "on" || value == "1";
}

std::string ParentDirectory(const std::string& path) {
  return path.substr(0, path.rfind('/'));
}

}  // namespace

bool IsValidRepositoryName(const std::string& fqrn) {
  if (fqrn.empty() || !std::isalnum(static_cast<unsigned char>(fqrn[0])))
    return false;
  for (char c : fqrn) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '_' &&
        c != '-') {
      return false;
    }
  }
  return fqrn.find('.') != std::string::npos && fqrn.back() != '.';
}

std::map<std::string, std::string> OptionsManager::ShellEnvironment(
    const std::string& fqrn, const SystemPaths& paths) const {
  std::map<std::string, std::string> env;
  for (const auto& [name, value] : options_) env[name] = value.value;
  env["CVMFS_FQRN"] = fqrn;
  if (!paths.root.empty()) env["CVMFS_ROOTDIR"] = paths.root;
  // Files of a configuration repository refer to it as
  // $CVMFS_MOUNT_DIR/$CVMFS_CONFIG_REPOSITORY, also where no file sets it.
  env.emplace("CVMFS_MOUNT_DIR", paths.MountRoot());
  return env;
}

Status OptionsManager::ParseFile(const std::string& path,
                                 const std::string& fqrn,
                                 const SystemPaths& paths) {
  CVMFS_ASSIGN_OR_RETURN(std::string text, ReadFile(path));
  const std::vector<std::string> names = AssignedParameters(text);
  if (names.empty()) return Status::Ok();  // nothing to read back
  CVMFS_ASSIGN_OR_RETURN(
      auto values, SourceShellFile(path, names, ShellEnvironment(fqrn, paths)));
  for (auto& [name, value] : values) {
    auto fixed = protected_.find(name);
    if (fixed != protected_.end() && fixed->second != value) {
      Warn("error in cvmfs configuration: attempt to change protected " + name +
           " from '" + fixed->second + "' to '" + value + "' in " + path +
           " (ignored)");
      continue;
    }
    options_[name] = Value{std::move(value), path};
  }
  return Status::Ok();
}

Status OptionsManager::ParseIfExists(const std::string& path,
                                     const std::string& fqrn,
                                     const SystemPaths& paths) {
  Status s = ParseFile(path, fqrn, paths);
  return s.IsNotFound() ? Status::Ok() : s;
}

void OptionsManager::Protect(const std::string& name) {
  protected_[name] = Get(name).value_or("");
}

void OptionsManager::Warn(const std::string& warning) {
  for (const std::string& w : warnings_)
    if (w == warning) return;
  warnings_.push_back(warning);
}

std::string OptionsManager::MountDirectory(const SystemPaths& paths) const {
  std::string dir = Get("CVMFS_MOUNT_DIR").value_or("");
  if (dir.empty()) dir = paths.MountRoot();
  while (dir.size() > 1 && dir.back() == '/') dir.pop_back();
  return dir;
}

std::optional<std::string> OptionsManager::ConfigRepositoryEtc(
    const std::string& fqrn, const SystemPaths& paths) const {
  const std::string repo = Get("CVMFS_CONFIG_REPOSITORY").value_or("");
  if (repo.empty() || repo == fqrn || !IsValidRepositoryName(repo))
    return std::nullopt;
  return JoinPath(MountDirectory(paths), repo + "/etc/cvmfs");
}

Status OptionsManager::ParseExternal(const std::string& rel,
                                     const std::string& fqrn,
                                     const SystemPaths& paths,
                                     ConfigRepositoryReach* reach) {
  const std::string repo = Get("CVMFS_CONFIG_REPOSITORY").value_or("");
  if (repo.empty() || repo == fqrn) return Status::Ok();
  const bool required = IsOn(Get("CVMFS_CONFIG_REPO_REQUIRED").value_or("no"));
  if (!IsValidRepositoryName(repo)) {
    const std::string msg = "invalid CVMFS_CONFIG_REPOSITORY: " + repo;
    if (required) return Status::InvalidArgument(msg);
    Warn(msg + " (no configuration repository is read)");
    return Status::Ok();
  }
  const std::string mount_dir = MountDirectory(paths);
  const std::string etc = *ConfigRepositoryEtc(fqrn, paths);
  if (reach) reach->Reach(etc);
  const std::string path = JoinPath(etc, rel);
  Status s = ParseFile(path, fqrn, paths);
  if (!s.IsNotFound()) return s;
  const std::string dir = ParentDirectory(path);
  if (IsDirectory(dir)) return Status::Ok();  // the file is optional
  if (required) {
    return Status::Unavailable(
        "required configuration repository directory does not exist: " + dir +
        " (CVMFS_CONFIG_REPOSITORY=" + repo +
        ", CVMFS_CONFIG_REPO_REQUIRED=yes: is " + repo +
        " mounted, or served by autofs on " + mount_dir + "?)");
  }
  Warn("configuration repository directory does not exist: " + dir);
  return Status::Ok();
}

Status OptionsManager::LoadForRepository(const SystemPaths& paths,
                                         const std::string& fqrn,
                                         ConfigRepositoryReach* reach) {
  if (!IsValidRepositoryName(fqrn)) {
    return Status::InvalidArgument(
        "'" + fqrn +
        "' is not a repository name (expected a fully qualified "
        "name such as atlas.cern.ch)");
  }
  const std::string etc = paths.EtcCvmfs();
  const std::string domain = fqrn.substr(fqrn.find('.') + 1);
  protected_.clear();
  CVMFS_RETURN_IF_ERROR(
      ParseIfExists(JoinPath(etc, "default.conf"), fqrn, paths));
  for (const std::string& f : DistributionDefaults(etc))
    CVMFS_RETURN_IF_ERROR(ParseIfExists(f, fqrn, paths));
  Protect("CVMFS_CONFIG_REPOSITORY");
  CVMFS_RETURN_IF_ERROR(ParseExternal("default.conf", fqrn, paths, reach));
  CVMFS_RETURN_IF_ERROR(
      ParseIfExists(JoinPath(etc, "default.local"), fqrn, paths));
  const std::string domain_conf = "domain.d/" + domain + ".conf";
  CVMFS_RETURN_IF_ERROR(ParseExternal(domain_conf, fqrn, paths, reach));
  CVMFS_RETURN_IF_ERROR(ParseIfExists(JoinPath(etc, domain_conf), fqrn, paths));
  CVMFS_RETURN_IF_ERROR(ParseIfExists(
      JoinPath(etc, "domain.d/" + domain + ".local"), fqrn, paths));
  const std::string repo_conf = "config.d/" + fqrn + ".conf";
  CVMFS_RETURN_IF_ERROR(ParseExternal(repo_conf, fqrn, paths, reach));
  CVMFS_RETURN_IF_ERROR(ParseIfExists(JoinPath(etc, repo_conf), fqrn, paths));
  return ParseIfExists(JoinPath(etc, "config.d/" + fqrn + ".local"), fqrn,
                       paths);
}

void OptionsManager::Set(const std::string& name, const std::string& value,
                         const std::string& source) {
  options_[name] = Value{value, source};
}

std::optional<std::string> OptionsManager::Get(const std::string& name) const {
  auto it = options_.find(name);
  if (it == options_.end()) return std::nullopt;
  return it->second.value;
}

std::optional<std::string> OptionsManager::GetSource(
    const std::string& name) const {
  auto it = options_.find(name);
  if (it == options_.end()) return std::nullopt;
  return it->second.source;
}

std::vector<std::string> OptionsManager::Names() const {
  std::vector<std::string> names;
  for (const auto& entry : options_) names.push_back(entry.first);
  return names;
}

std::string OptionsManager::Dump(bool with_sources) const {
  std::string out;
  for (const auto& [name, value] : options_) {
    out += name + "=" + value.value;
    if (with_sources) out += "    # from " + value.source;
    out += "\n";
  }
  return out;
}

}  // namespace cvmfs
