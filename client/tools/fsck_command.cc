// cvmfs_config fsck [-v] [-p] [-f] [-j N]: cvmfs_fsck (cache/cache_check.h)
// over every cache directory of the node that exists: the shared one and
// each configured repository's, as CVMFS's `cvmfs_config fsck` runs
// cvmfs_fsck with the same options on each. Prints "CernVM-FS fsck on
// <dir>" before each; the exit code ORs cvmfs_fsck's bits over the
// directories (CVMFS adds them, which can carry into other bits).
#include <cstdlib>

#include "cache/cache_check.h"
#include "client/tools/config_tool.h"
#include "cvmfs/file_util.h"

namespace cvmfs::tools {

namespace {

void FsckUsage(std::ostream& out) {
  out << "Usage: cvmfs_config fsck [-v] [-p] [-f] [-j #threads]\n"
         "Checks every cache directory for consistency (as cvmfs_fsck).\n"
         "Options:\n"
         "  -v verbose output\n"
         "  -p try to fix automatically (quarantine corrupted files)\n"
         "  -f force rebuild of managed cache db on next mount\n"
         "  -j number of concurrent integrity check worker threads\n"
         "Exit code: bits 1 fixed, 4 errors left, 8 operational error, "
         "16 usage\n";
}

// -v -p -f -j N (also -jN and combined flags like -pv).
bool ParseFsckArgs(const Args& args, cache::CacheCheckOptions* o, bool* help) {
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a.size() < 2 || a[0] != '-') return false;
    for (size_t k = 1; k < a.size(); ++k) {
      switch (a[k]) {
        case 'h':
          *help = true;
          break;
        case 'v':
          o->verbose = true;
          break;
        case 'p':
          o->fix = true;
          break;
        case 'f':
          o->force_rebuild = true;
          break;
        case 'j': {
          std::string n = a.substr(k + 1);
          if (n.empty()) {
            if (++i >= args.size()) return false;
            n = args[i];
          }
          char* end = nullptr;
          long v = std::strtol(n.c_str(), &end, 10);
          if (*end != '\0' || v < 1 || v > 1024) return false;
          o->threads = static_cast<int>(v);
          k = a.size();
          break;
        }
        default:
          return false;
      }
    }
  }
  return true;
}

}  // namespace

int RunFsck(const ConfigToolEnv& env, const Args& args) {
  cache::CacheCheckOptions options;
  bool help = false;
  if (!ParseFsckArgs(args, &options, &help)) {
    FsckUsage(*env.err);
    return cache::kCheckUsage;
  }
  if (help) {
    FsckUsage(*env.out);
    return 0;
  }
  auto dirs = CacheDirectories(env);
  if (!dirs.ok()) {
    *env.err << "Failed to read CernVM-FS configuration\n";
    return cache::kCheckOperational;
  }
  int rc = 0;
  for (const std::string& dir : *dirs) {
    if (!IsDirectory(dir)) continue;
    *env.out << "CernVM-FS fsck on " << dir << "\n";
    rc |= cache::CheckCache(dir, options, *env.out).ExitCode();
  }
  return rc;
}

}  // namespace cvmfs::tools
