#include "cache/cache_recovery.h"

#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <tuple>
#include <unordered_map>

#include "cache/cache_layout.h"
#include "cache/lru_quota.h"
#include "cvmfs/file_util.h"

namespace cache {

using cvmfs::Result;
using cvmfs::Status;

namespace {

struct FoundFile {
  std::string sha1;
  uint64_t size;
  int64_t atime_ns;
};

bool ValidRow(const CacheDb::Row& row) {
  auto digest = cvmfs::Digest::Parse(row.sha1);
  return digest.ok() && digest->algorithm != cvmfs::HashAlgorithm::kMd5 &&
         digest->ToString() == row.sha1 &&
         (row.type == static_cast<int>(ObjectType::kRegular) ||
          row.type == static_cast<int>(ObjectType::kCatalog));
}

// State of one reconciliation, split out to keep the steps short.
class Reconciler {
 public:
  Reconciler(const std::string& dir, const std::vector<CacheDb::Row>& rows,
             bool stat_known)
      : dir_(dir),
        rows_(rows),
        stat_known_(stat_known),
        seen_(rows.size(), false),
        sizes_(rows.size()) {
    for (size_t i = 0; i < rows.size(); ++i) {
      sizes_[i] = rows[i].size;
      if (ValidRow(rows[i])) index_.emplace(rows[i].sha1, i);
    }
  }

  Status ScanBucket(int bucket) {
    std::string name = BucketName(bucket);
    std::string bucket_dir = cvmfs::JoinPath(dir_, name);
    auto files = cvmfs::ListDirectory(bucket_dir);
    if (!files.ok()) return files.status().Annotate("scanning cache");
    for (const std::string& file : *files) {
      auto digest = ParseObjectName(name, file);
      if (digest) Visit(digest->ToString(), cvmfs::JoinPath(bucket_dir, file));
    }
    return Status::Ok();
  }

  Reconciled Finish() {
    Reconciled out;
    std::sort(found_.begin(), found_.end(), [](const auto& a, const auto& b) {
      return std::tie(a.atime_ns, a.sha1) < std::tie(b.atime_ns, b.sha1);
    });
    for (const FoundFile& f : found_) {
      CacheDb::Row row;
      row.sha1 = f.sha1;
      row.size = f.size;
      row.path = kRebuiltDescription;
      out.rows.push_back(std::move(row));
    }
    out.added = found_.size();
    for (size_t i = 0; i < rows_.size(); ++i) {
      if (!seen_[i]) {
        ++out.dropped;
        continue;
      }
      CacheDb::Row row = rows_[i];
      if (row.size != sizes_[i] || row.pinned != 0) resized_or_pinned_ = true;
      row.size = sizes_[i];
      row.pinned = 0;
      out.rows.push_back(std::move(row));
    }
    out.changed = out.added > 0 || out.dropped > 0 || resized_or_pinned_;
    if (out.changed) {
      for (size_t i = 0; i < out.rows.size(); ++i) {
        int64_t flag = out.rows[i].acseq & LruQuota::kVolatileFlag;
        out.rows[i].acseq = static_cast<int64_t>(i) | flag;
      }
    }
    return out;
  }

 private:
  void Visit(const std::string& sha1, const std::string& path) {
    auto it = index_.find(sha1);
    if (it != index_.end() && !stat_known_) {
      seen_[it->second] = true;
      return;
    }
    struct stat st;
    if (::stat(path.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return;
    if (it != index_.end()) {
      seen_[it->second] = true;
      sizes_[it->second] = static_cast<uint64_t>(st.st_size);
      return;
    }
    int64_t atime_ns = static_cast<int64_t>(st.st_atim.tv_sec) * 1000000000 +
                       st.st_atim.tv_nsec;
    found_.push_back({sha1, static_cast<uint64_t>(st.st_size), atime_ns});
  }

  const std::string& dir_;
  const std::vector<CacheDb::Row>& rows_;
  const bool stat_known_;
  std::unordered_map<std::string, size_t> index_;  // sha1 -> row
  std::vector<bool> seen_;                         // row has a file
  std::vector<uint64_t> sizes_;                    // row size on disk
  std::vector<FoundFile> found_;                   // files without a row
  bool resized_or_pinned_ = false;
};

}  // namespace

Result<Reconciled> ReconcileWithFiles(const std::string& dir,
                                      const std::vector<CacheDb::Row>& rows,
                                      bool stat_known) {
  Reconciler reconciler(dir, rows, stat_known);
  for (int bucket = 0; bucket <= 0xff; ++bucket)
    CVMFS_RETURN_IF_ERROR(reconciler.ScanBucket(bucket));
  return reconciler.Finish();
}

Status RemoveStaleTransactions(const std::string& dir,
                               int64_t min_age_seconds) {
  const std::string txn = cvmfs::JoinPath(dir, kTxnDir);
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> names,
                         cvmfs::ListDirectory(txn));
  const time_t now = ::time(nullptr);
  for (const std::string& name : names) {
    std::string path = cvmfs::JoinPath(txn, name);
    struct stat st;
    if (min_age_seconds > 0 && (::lstat(path.c_str(), &st) != 0 ||
                                now - st.st_mtime < min_age_seconds))
      continue;
    CVMFS_RETURN_IF_ERROR(cvmfs::RemoveTree(path));
  }
  return Status::Ok();
}

}  // namespace cache
