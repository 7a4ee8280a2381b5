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

// Every file LoadForRepository reads, in order (existing or not).
std::vector<std::string> ConfigFiles(const std::string& etc,
                                     const std::string& fqrn) {
  const std::string domain = fqrn.substr(fqrn.find('.') + 1);
  std::vector<std::string> files = {JoinPath(etc, "default.conf")};
  for (std::string& f : DistributionDefaults(etc))
    files.push_back(std::move(f));
  files.push_back(JoinPath(etc, "default.local"));
  files.push_back(JoinPath(etc, "domain.d/" + domain + ".conf"));
  files.push_back(JoinPath(etc, "domain.d/" + domain + ".local"));
  files.push_back(JoinPath(etc, "config.d/" + fqrn + ".conf"));
  files.push_back(JoinPath(etc, "config.d/" + fqrn + ".local"));
  return files;
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
  for (auto& [name, value] : values)
    options_[name] = Value{std::move(value), path};
  return Status::Ok();
}

Status OptionsManager::LoadForRepository(const SystemPaths& paths,
                                         const std::string& fqrn) {
  if (!IsValidRepositoryName(fqrn)) {
    return Status::InvalidArgument(
        "'" + fqrn +
        "' is not a repository name (expected a fully qualified "
        "name such as atlas.cern.ch)");
  }
  for (const std::string& file : ConfigFiles(paths.EtcCvmfs(), fqrn)) {
    Status s = ParseFile(file, fqrn, paths);
    if (!s.ok() && !s.IsNotFound()) return s;
  }
  return Status::Ok();
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
