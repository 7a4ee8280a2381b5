// cvmfs_config bugreport: what a developer needs to understand a problem,
// in one archive, as CVMFS's bugreport collects it, minus key material:
//
//   etc/...              the configuration files of $CVMFS_ROOTDIR/etc/cvmfs
//                        (*.conf, *.local, blacklist); keys, certificates
//                        and every other file are NOT copied: their names
//                        and sizes are in etc-not-copied.txt
//   showconfig-<fqrn>    `cvmfs_config showconfig <fqrn>` per repository
//   status, stat, chksetup
//                        `cvmfs_config status`, `stat -v`, `chksetup`
//   talk-<fqrn>          per mounted repository, the answers of cvmfs_talk
//                        (version, revision, host/proxy/timeout info,
//                        internal affairs, cache instance and size, ...)
//   debuglog-<fqrn>      the last kLogLines lines of its CVMFS_DEBUGLOG
//   cachemgr.log-<n>     the last lines of each cache manager's log
//   syslog               the last cvmfs2 lines of /var/log/syslog and
//                        /var/log/messages
//   quarantaine-<n>      the names in each cache's quarantaine/
//   mounts, df, processes, versions
//                        the mount table, the cache file systems' space,
//                        the cvmfs2 processes, program and kernel versions
//
// The archive is <TMPDIR or /tmp>/cvmfs-bugreport.XXXXXX/
// cvmfs-bugreport.tar.gz (made with tar), its path printed at the end.
// Root only, as in CVMFS.
#include <sys/statvfs.h>
#include <sys/utsname.h>
#include <unistd.h>

#include <cstdlib>
#include <deque>
#include <fstream>
#include <sstream>

#include "client/magic_xattrs.h"
#include "client/talk/talk_socket.h"
#include "client/tools/config_tool.h"
#include "client/tools/process_table.h"
#include "client/tools/repository_config.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

constexpr size_t kLogLines = 1000;

// The files of /etc/cvmfs that are configuration, not key material.
bool IsConfigFile(const std::string& relative) {
  if (relative.rfind("keys/", 0) == 0 ||
      relative.find("/keys/") != std::string::npos)
    return false;
  const std::string name = relative.substr(relative.rfind('/') + 1);
  auto ends = [&](const std::string& suffix) {
    return name.size() > suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) ==
               0;
  };
  return ends(".conf") || ends(".local") || name == "blacklist";
}

// Copies the configuration files below `src` to `dst`; lists the others.
void CopyConfig(const std::string& src, const std::string& dst,
                const std::string& relative, std::ostream& skipped) {
  auto names = ListDirectory(JoinPath(src, relative));
  if (!names.ok()) return;
  for (const std::string& n : *names) {
    const std::string rel = relative.empty() ? n : relative + "/" + n;
    const std::string path = JoinPath(src, rel);
    struct stat st;
    if (::lstat(path.c_str(), &st) != 0) continue;
    if (S_ISDIR(st.st_mode)) {
      CopyConfig(src, dst, rel, skipped);
    } else if (S_ISREG(st.st_mode) && IsConfigFile(rel)) {
      auto text = ReadFile(path);
      const std::string out = JoinPath(dst, rel);
      if (text.ok() && MakeDirs(out.substr(0, out.rfind('/')), 0700).ok())
        (void)WriteFileAtomic(out, *text, 0600);
    } else {
      skipped << rel << " (" << st.st_size << " bytes, not copied)\n";
    }
  }
}

// The last `n` lines of `path` that contain `filter` ("" for all).
std::string Tail(const std::string& path, size_t n,
                 const std::string& filter = "") {
  std::ifstream in(path);
  std::deque<std::string> lines;
  std::string line;
  while (std::getline(in, line)) {
    if (!filter.empty() && line.find(filter) == std::string::npos) continue;
    lines.push_back(line);
    if (lines.size() > n) lines.pop_front();
  }
  std::string out;
  for (const std::string& l : lines) out += l + "\n";
  return out;
}

// A cvmfs_config command's output, as text.
std::string Capture(const ConfigToolEnv& env,
                    int (*command)(const ConfigToolEnv&, const Args&),
                    const Args& args) {
  std::ostringstream out;
  ConfigToolEnv e = env;
  e.out = &out;
  e.err = &out;
  const int rc = command(e, args);
  out << "(exit code " << rc << ")\n";
  return out.str();
}

std::string TalkAnswers(const std::string& socket) {
  std::string out;
  for (const char* cmd :
       {"version", "pid", "pid cachemgr", "mountpoint", "revision",
        "open catalogs", "max ttl info", "host info", "proxy info",
        "timeout info", "cache instance", "cache size", "prefetch info",
        "internal affairs"}) {
    auto reply = client::TalkRequest(socket, cmd);
    out += std::string("$ cvmfs_talk ") + cmd + "\n" +
           (reply.ok() ? *reply : "failed: " + reply.status().message() + "\n");
  }
  return out;
}

std::string Versions() {
  std::string out =
      std::string("CernVM-FS version ") + client::kClientVersion + "\n";
  struct utsname u;
  if (::uname(&u) == 0)
    out += std::string(u.sysname) + " " + u.nodename + " " + u.release + " " +
           u.version + " " + u.machine + "\n";
  return out;
}

std::string DiskFree(const std::vector<std::string>& dirs) {
  std::string out = "DIRECTORY SIZE(K) USED(K) AVAILABLE(K)\n";
  for (const std::string& d : dirs) {
    struct statvfs st;
    if (::statvfs(d.c_str(), &st) != 0) continue;
    const uint64_t k = st.f_frsize / 1024;
    out += d + " " + std::to_string(st.f_blocks * k) + " " +
           std::to_string((st.f_blocks - st.f_bfree) * k) + " " +
           std::to_string(st.f_bavail * k) + "\n";
  }
  return out;
}

std::string Processes(const ConfigToolEnv& env) {
  std::string out;
  for (pid_t pid : ListPids(env.proc)) {
    const std::string exe = ProcessExecutable(env.proc, pid);
    if (exe.empty() || exe.substr(exe.rfind('/') + 1) != "cvmfs2") continue;
    auto cmdline = ReadFile(env.proc + "/" + std::to_string(pid) + "/cmdline");
    std::string args = cmdline.ok() ? *cmdline : "";
    for (char& c : args)
      if (c == '\0') c = ' ';
    out += std::to_string(pid) + " " + args + "\n";
  }
  return out;
}

// The report's files, by name.
using Files = std::vector<std::pair<std::string, std::string>>;

void CollectRepositories(const ConfigToolEnv& env, Files* files) {
  auto repos = KnownRepositories(env);
  if (!repos.ok()) return;
  for (const std::string& fqrn : *repos) {
    files->push_back(
        {"showconfig-" + fqrn, Capture(env, RunShowConfig, {fqrn})});
    auto config = LoadRepositoryConfig(env.paths, fqrn);
    if (!config.ok()) continue;
    if (PathExists(config->socket))
      files->push_back({"talk-" + fqrn, TalkAnswers(config->socket)});
    if (config->settings && !config->settings->debuglog.empty())
      files->push_back(
          {"debuglog-" + fqrn, Tail(config->settings->debuglog, kLogLines)});
  }
}

void CollectCaches(const ConfigToolEnv& env, Files* files) {
  auto dirs = CacheDirectories(env);
  if (!dirs.ok()) return;
  int n = 0;
  std::string index;
  for (const std::string& dir : *dirs) {
    if (!IsDirectory(dir)) continue;
    const std::string id = std::to_string(n++);
    index += id + " " + dir + "\n";
    files->push_back(
        {"cachemgr.log-" + id, Tail(JoinPath(dir, "cachemgr.log"), kLogLines)});
    auto q = ListDirectory(JoinPath(dir, "quarantaine"));
    std::string names;
    if (q.ok())
      for (const std::string& name : *q) names += name + "\n";
    files->push_back({"quarantaine-" + id, names});
  }
  files->push_back({"caches", index});
  files->push_back({"df", DiskFree(*dirs)});
}

std::string TarProgram() {
  for (const char* tar : {"/usr/bin/tar", "/bin/tar"})
    if (::access(tar, X_OK) == 0) return tar;
  return "";
}

}  // namespace

int RunBugreport(const ConfigToolEnv& env, const Args& args) {
  if (!args.empty()) {
    *env.err << "Usage: cvmfs_config bugreport\n";
    return 1;
  }
  const char* tmp = std::getenv("TMPDIR");
  std::string tmpl =
      JoinPath(tmp && *tmp ? tmp : "/tmp", "cvmfs-bugreport.XXXXXX");
  if (!::mkdtemp(tmpl.data())) {
    *env.err << "cannot create a directory like " << tmpl << "\n";
    return 1;
  }
  const std::string report = JoinPath(tmpl, "bugreport");
  if (!MakeDirs(report, 0700).ok()) return 1;

  *env.out << "Gathering " << env.paths.EtcCvmfs() << "\n";
  std::ostringstream skipped;
  CopyConfig(env.paths.EtcCvmfs(), JoinPath(report, "etc"), "", skipped);
  Files files = {{"etc-not-copied.txt", skipped.str()}};
  *env.out << "Gathering repository configuration, talk and logs\n";
  CollectRepositories(env, &files);
  CollectCaches(env, &files);
  *env.out << "Gathering system information\n";
  files.push_back({"status", Capture(env, RunStatus, {})});
  files.push_back({"stat", Capture(env, RunStat, {"-v"})});
  files.push_back({"chksetup", Capture(env, RunChkSetup, {})});
  auto mounts = ReadFile(env.mount_table);
  files.push_back({"mounts", mounts.ok() ? *mounts : ""});
  files.push_back({"processes", Processes(env)});
  files.push_back({"versions", Versions()});
  files.push_back(
      {"syslog", Tail("/var/log/syslog", kLogLines, "cvmfs") +
                     Tail("/var/log/messages", kLogLines, "cvmfs")});
  for (const auto& [name, text] : files) {
    Status st = WriteFileAtomic(JoinPath(report, name), text, 0600);
    if (!st.ok()) {
      *env.err << st.message() << "\n";
      return 1;
    }
  }
  const std::string archive = JoinPath(tmpl, "cvmfs-bugreport.tar.gz");
  const std::string tar = TarProgram();
  if (tar.empty() || !Run({tar, "czf", archive, "-C", tmpl, "bugreport"})) {
    *env.err << "Failed to create " << archive << " (tar)\n";
    return 1;
  }
  (void)RemoveTree(report);
  *env.out << "\nSystem information has been collected in " << archive
           << "\nPlease attach this file to your problem description; it "
              "holds no keys, only their names.\n";
  return 0;
}

}  // namespace cvmfs::tools
