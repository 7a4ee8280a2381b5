#include "cache/cache_check.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstring>
#include <thread>
#include <vector>

#include "cache/cache_layout.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/mutex.h"

namespace cache {

using cvmfs::Digest;

namespace {

// Shared by the workers of one check.
class Check {
 public:
  Check(const std::string& dir, const CacheCheckOptions& options,
        std::ostream& out)
      : dir_(dir), options_(options), out_(&out) {}

  void RunWorker() {
    for (;;) {
      const int bucket = next_bucket_++;
      if (bucket >= 256) return;
      CheckBucket(BucketName(bucket));
    }
  }

  void Say(const std::string& line) {
    cvmfs::MutexLock lock(&mu_);
    *out_ << line << "\n";
  }
  void Progress() {
    cvmfs::MutexLock lock(&mu_);
    *out_ << "." << std::flush;
  }

  std::atomic<uint64_t> files{0}, fixed{0}, unfixed{0}, operational{0};

 private:
  void CheckBucket(const std::string& bucket) {
    const std::string path = cvmfs::JoinPath(dir_, bucket);
    if (options_.verbose) Say("Entering " + bucket);
    auto names = cvmfs::ListDirectory(path);
    if (!names.ok()) {
      Say("Invalid cache directory, " + path + " does not exist");
      ++unfixed;
      return;
    }
    for (const std::string& name : *names) {
      std::optional<Digest> id = ParseObjectName(bucket, name);
      if (!id) continue;  // not an object: left alone
      CheckFile(cvmfs::JoinPath(path, name), *id);
    }
  }

  void CheckFile(const std::string& path, const Digest& id) {
    cvmfs::UniqueFd fd(::open(path.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd.valid()) {
      if (errno == ENOENT) return;  // evicted meanwhile
      Say("Error: cannot open " + path + " (" + std::strerror(errno) + ")");
      ++operational;
      return;
    }
    struct stat st;
    if (::fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode)) {
      Say("Warning: " + path + " is not a regular file");
      return;
    }
    const uint64_t n = files++;
    if (options_.verbose) {
      Say("Checking file " + path);
    } else if (n % 1000 == 0) {
      Progress();
    }
    auto content = cvmfs::ReadFile(path);
    if (!content.ok()) {
      if (content.status().IsNotFound()) return;
      Say("Error: could not read " + path + ": " + content.status().message());
      ++operational;
      return;
    }
    if (ObjectContentMatches(id, *content)) return;
    if (!options_.fix) {
      Say("Error: " + path + " does not match its name (content hash " +
          cvmfs::HashString(id.algorithm, *content).ToString() +
          "), delete this file from cache directory!");
      ++unfixed;
      return;
    }
    Quarantine(path, id);
  }

  void Quarantine(const std::string& path, const Digest& id) {
    const std::string target = cvmfs::JoinPath(
        cvmfs::JoinPath(dir_, std::string(kQuarantineDir)), id.ToString());
    if (::rename(path.c_str(), target.c_str()) == 0) {
      Say("Fix: " + path + " is corrupted, moved to quarantaine folder");
      ++fixed;
      return;
    }
    Say("Warning: failed to move " + path + " into quarantaine folder (" +
        std::strerror(errno) + ")");
    if (::unlink(path.c_str()) == 0) {
      Say("Fix: " + path + " is corrupted, file unlinked");
      ++fixed;
    } else {
      Say("Error: " + path + " is corrupted, could not unlink");
      ++unfixed;
    }
  }

  const std::string dir_;
  const CacheCheckOptions options_;
  std::atomic<int> next_bucket_{0};
  cvmfs::Mutex mu_;  // guards the writes to *out_; leaf lock
  std::ostream* const out_ PT_GUARDED_BY(mu_);
};

// Warns about leftovers in txn/ (a running client writes there); false if
// the directory is not a cache.
bool CheckTxn(const std::string& dir, std::ostream& out) {
  auto names = cvmfs::ListDirectory(cvmfs::JoinPath(dir, std::string(kTxnDir)));
  if (!names.ok()) {
    out << "Invalid cache directory, " << dir << "/txn does not exist\n";
    return false;
  }
  if (!names->empty())
    out << "Warning: temporary directory " << dir
        << "/txn is not empty\nIf this repository is currently _not_ "
           "mounted, you can remove its contents\n";
  return true;
}

}  // namespace

int CacheCheckReport::ExitCode() const {
  return (fixed ? kCheckFixed : 0) | (unfixed ? kCheckUnfixed : 0) |
         (operational ? kCheckOperational : 0);
}

bool ObjectContentMatches(const Digest& id, std::string_view content) {
  std::string compressed;
  cvmfs::Compressor(6).Compress(content, &compressed);
  if (cvmfs::HashString(id.algorithm, compressed) == id) return true;
  if (cvmfs::HashString(id.algorithm, cvmfs::ZlibCompress(content, 6)) == id)
    return true;
  return cvmfs::HashString(id.algorithm, content) == id;
}

CacheCheckReport CheckCache(const std::string& dir,
                            const CacheCheckOptions& options,
                            std::ostream& out) {
  CacheCheckReport report;
  if (!CheckTxn(dir, out)) {
    report.operational = 1;
    return report;
  }
  Check check(dir, options, out);
  if (!options.verbose) out << "Verifying: " << std::flush;
  std::vector<std::thread> workers;
  for (int i = 0; i < std::max(1, options.threads); ++i)
    workers.emplace_back([&check] { check.RunWorker(); });
  for (std::thread& w : workers) w.join();
  if (!options.verbose) out << "\n";
  report.files = check.files;
  report.fixed = check.fixed;
  report.unfixed = check.unfixed;
  report.operational = check.operational;
  out << "Verified " << report.files << " files\n";
  if (report.fixed > 0 || options.force_rebuild) {
    const std::string db = cvmfs::JoinPath(dir, std::string(kCacheDbName));
    if (::unlink(db.c_str()) == 0) {
      out << "Fix: managed cache db unlinked, will be rebuilt on next mount\n";
      ++report.fixed;
    } else if (errno != ENOENT) {
      out << "Error: could not unlink managed cache database ("
          << std::strerror(errno) << ")\n";
      ++report.unfixed;
    }
  }
  if (check.fixed > 0)
    out << "\nWARNING: There might be corrupted files in the kernel buffers.\n"
           "Remount CernVM-FS or run 'echo 3 > /proc/sys/vm/drop_caches'\n\n";
  return report;
}

}  // namespace cache
