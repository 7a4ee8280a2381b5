// cvmfs_config chksetup: checks the installation and the configuration of
// every known repository; prints one "Error: ..." or "Warning: ..." line
// per problem, "OK" if there is none, and fails if there is an error.
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <regex>

#include "client/tools/config_tool.h"
#include "client/tools/repository_config.h"
#include "cvmfs/credentials.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

struct Findings {
  std::ostream* out;
  int errors = 0, warnings = 0;
  void Error(const std::string& m) {
    *out << "Error: " << m << "\n";
    ++errors;
  }
  void Warning(const std::string& m) {
    *out << "Warning: " << m << "\n";
    ++warnings;
  }
};

bool IsExecutable(const std::string& path) {
  struct stat st;
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
         ::access(path.c_str(), X_OK) == 0;
}

bool FileMentions(const std::string& file, const std::regex& line_pattern) {
  std::ifstream in(file);
  std::string line;
  while (std::getline(in, line))
    if (std::regex_search(line, line_pattern)) return true;
  return false;
}

std::string RegexQuote(const std::string& s) {
  static const std::regex special(R"([.^$|()\[\]{}*+?\\])");
  return std::regex_replace(s, special, R"(\$&)");
}

void CheckInstallation(const ConfigToolEnv& env, Findings* f) {
  struct stat st;
  if (::stat("/dev/fuse", &st) != 0 || !S_ISCHR(st.st_mode))
    f->Error("character device /dev/fuse does not exist");
  bool fuse3 = false;
  for (const char* dir :
       {"/usr/bin", "/bin", "/usr/local/bin", "/sbin", "/usr/sbin"})
    fuse3 = fuse3 || IsExecutable(std::string(dir) + "/fusermount3");
  if (!fuse3)
    f->Error("fusermount3 not found: FUSE 3 (fuse3) is not installed");
  for (const char* program : {"cvmfs2", "cvmfs_talk", "mount.cvmfs"})
    if (!IsExecutable(JoinPath(env.program_dir, program)))
      f->Error(std::string(program) + " not found in " + env.program_dir);
  const std::string helper = env.paths.Under("/sbin/mount.cvmfs");
  if (!IsExecutable(helper))
    f->Error("failed to locate " + helper + " (run cvmfs_config setup)");
}

void CheckAutofs(const ConfigToolEnv& env, const std::string& mount_dir,
                 Findings* f) {
  const std::string map = env.paths.Under("/etc/auto.cvmfs");
  if (!IsExecutable(map))
    f->Error(map + " is not executable (run cvmfs_config setup)");
  const std::regex entry("^" + RegexQuote(mount_dir) + "[ \t]+(program:)?" +
                         RegexQuote(map));
  bool referenced = false;
  std::string checked;
  for (const char* file :
       {"/etc/auto.master.d/cvmfs.autofs", "/etc/auto.master"}) {
    const std::string path = env.paths.Under(file);
    checked += (checked.empty() ? "" : ", ") + path;
    referenced = referenced || FileMentions(path, entry);
  }
  if (!referenced)
    f->Warning("CernVM-FS map is not referenced from autofs maps (" + checked +
               ")");
}

void CheckWritable(const std::string& dir, const std::string& fqrn,
                   Findings* f) {
  std::string existing = dir;
  while (!PathExists(existing) && existing.size() > 1)
    existing = existing.substr(0, std::max<size_t>(1, existing.rfind('/')));
  if (::access(existing.c_str(), W_OK) != 0)
    f->Error("cache directory " + dir + " of " + fqrn + " is not writable");
}

void CheckRepository(const ConfigToolEnv& env, const std::string& fqrn,
                     Findings* f) {
  auto config = LoadRepositoryConfig(env.paths, fqrn);
  if (!config.ok()) {
    f->Error("failed to read configuration for " + fqrn + ": " +
             config.status().message());
    return;
  }
  for (const char* required : {"CVMFS_HTTP_PROXY", "CVMFS_SERVER_URL"})
    if (config->options.Get(required).value_or("").empty())
      f->Error(std::string("required parameter ") + required +
               " undefined for " + fqrn);
  CheckWritable(config->cache_dir, fqrn, f);
  if (!config->settings) {
    f->Error("invalid configuration for " + fqrn + ": " +
             config->settings_error.message());
    return;
  }
  const ClientSettings& s = *config->settings;
  if (s.public_keys.empty())
    f->Error("no public keys for " + fqrn +
             " (CVMFS_PUBLIC_KEY unset, none in " + s.keys_dir + ")");
  for (const std::string& key : s.public_keys)
    if (::access(key.c_str(), R_OK) != 0)
      f->Error("public key " + key + " for " + fqrn + " not accessible");
  // cvmfs2 switches to CVMFS_USER once mounted (doc/security.md).
  if (!LookUpUser(s.user).ok())
    f->Error("CVMFS_USER=" + s.user + " of " + fqrn +
             " does not exist (cvmfs_config setup creates the user cvmfs)");
  if (s.quota_limit_mb >= 0 && s.quota_limit_mb < 1000)
    f->Warning("cache limit for " + fqrn + " is very low (below 1GB)");
  if (s.quota_limit_mb < 0)
    f->Warning("no cache quota set for " + fqrn +
               ".  The cache may fill its partition.");
  if (s.nfiles < 8192)
    f->Warning("maximum number of open files is low (" +
               std::to_string(s.nfiles) + ") for " + fqrn);
  if (!s.debuglog.empty()) f->Warning("debug mode is on for " + fqrn);
}

}  // namespace

int RunChkSetup(const ConfigToolEnv& env, const Args& args) {
  if (!args.empty()) {
    *env.err << "Usage: cvmfs_config chksetup\n";
    return 1;
  }
  Findings f{env.out};
  auto global = LoadGlobalOptions(env.paths);
  if (!global.ok()) {
    f.Error("failed to read the configuration: " + global.status().message());
    return 1;
  }
  CheckInstallation(env, &f);
  CheckAutofs(env, MountDir(*global, env.paths), &f);
  auto repos = KnownRepositories(env);
  if (repos.ok() && repos->empty() &&
      global->Get("CVMFS_HTTP_PROXY").value_or("").empty())
    f.Error(
        "required parameter CVMFS_HTTP_PROXY undefined (and no repository in "
        "CVMFS_REPOSITORIES)");
  if (repos.ok())
    for (const std::string& fqrn : *repos) CheckRepository(env, fqrn, &f);
  if (f.errors + f.warnings == 0) *env.out << "OK\n";
  return f.errors > 0 ? 1 : 0;
}

}  // namespace cvmfs::tools
