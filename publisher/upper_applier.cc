#include "publisher/upper_applier.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <deque>
#include <memory>
#include <set>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/path_hash.h"
#include "publisher/dirtab_catalogs.h"

namespace publisher {

using cvmfs::DirectoryEntry;
using cvmfs::Result;
using cvmfs::Status;

namespace {

constexpr char kCatalogMarker[] = ".cvmfscatalog";
// How many files may wait for the pipeline before registration blocks.
constexpr size_t kMaxPending = 4096;
// Files opened ahead of the one being read, with the kernel reading their
// first kReadAheadBytes in the background: with a cold page cache, reading
// one small file after the other waits for the disk once per file, while
// many requests in flight keep it busy.
constexpr size_t kReadAheadFiles = 64;
constexpr off_t kReadAheadBytes = 4 << 20;

bool SameVersion(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && a.st_ino == b.st_ino;
}

// A file of the upper layer that must not change while it is read.
class UpperFileSource : public ByteSource {
 public:
  UpperFileSource(std::string path, std::string repo_path, const struct stat& scanned)
      : path_(std::move(path)), repo_path_(std::move(repo_path)), scanned_(scanned) {}

  // Opens the file and asks the kernel to start reading its beginning.
  Status Open() {
    fd_.Reset(::open(path_.c_str(), O_RDONLY | O_NOFOLLOW | O_CLOEXEC));
    if (!fd_.valid()) return Status::FromErrno(errno, "open " + path_);
    (void)::posix_fadvise(fd_.get(), 0, kReadAheadBytes, POSIX_FADV_WILLNEED);
    return CheckUnchanged();
  }

  Result<size_t> Read(void* buf, size_t size) override {
    ssize_t n;
    do {
      n = ::read(fd_.get(), buf, size);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return Status::FromErrno(errno, "read " + path_);
    if (n == 0) CVMFS_RETURN_IF_ERROR(CheckUnchanged());
    return static_cast<size_t>(n);
  }

 private:
  Status CheckUnchanged() {
    struct stat now;
    if (::fstat(fd_.get(), &now) != 0) return Status::FromErrno(errno, "fstat " + path_);
    if (SameVersion(now, scanned_)) return Status::Ok();
    return Status::IoError(repo_path_ + " (" + path_ + ") changed while it was published (size " +
                           std::to_string(scanned_.st_size) + " -> " +
                           std::to_string(now.st_size) + ", mtime changed: " +
                           (now.st_mtim.tv_sec != scanned_.st_mtim.tv_sec ||
                                    now.st_mtim.tv_nsec != scanned_.st_mtim.tv_nsec
                                ? "yes"
                                : "no") +
                           "); is something writing into the scratch area?");
  }

  std::string path_, repo_path_;
  struct stat scanned_;
  cvmfs::UniqueFd fd_;
};

struct Pending {
  std::string path;
  DirectoryEntry entry;
  std::shared_ptr<PendingFile> content;
};

// A file opened (and being read ahead) but not yet fed to the pipeline.
struct Opened {
  std::string path;
  DirectoryEntry entry;
  uint64_t size;
  std::unique_ptr<UpperFileSource> source;
};

size_t Depth(const std::string& p) { return std::count(p.begin(), p.end(), '/'); }

class Applier {
 public:
  Applier(const UpperApplyOptions& options, CatalogTree* tree, IngestPipeline* pipeline,
          UpperChanges* changes)
      : options_(options), tree_(tree), pipeline_(pipeline), changes_(changes) {}

  Status Visit(const UpperEntry& e);
  Status Finish();

 private:
  DirectoryEntry BaseEntry(const UpperEntry& e) const;
  Status VisitDirectory(const UpperEntry& e);
  Status VisitFile(const UpperEntry& e);
  Status Register(Pending& p);
  Status SubmitOldest();
  Status FlushReady(bool wait_all);
  Status UpdateNestedCatalogs();

  const UpperApplyOptions& options_;
  CatalogTree* tree_;
  IngestPipeline* pipeline_;
  UpperChanges* changes_;
  std::deque<Opened> opened_;    // in scan order, before pending_
  std::deque<Pending> pending_;
  std::set<std::string> touched_dirs_;
  std::vector<std::string> markers_added_, markers_removed_;
};

DirectoryEntry Applier::BaseEntry(const UpperEntry& e) const {
  DirectoryEntry d;
  d.mode = e.st.st_mode;
  d.uid = e.st.st_uid;
  d.gid = e.st.st_gid;
  d.mtime = e.st.st_mtim.tv_sec;
  d.hash_algorithm = options_.hash_algorithm;
  d.compression = options_.compression;
  for (const auto& [k, v] : e.xattrs) d.xattrs.entries.emplace_back(k, v);
  return d;
}

Status Applier::Visit(const UpperEntry& e) {
  switch (e.kind) {
    case UpperEntry::Kind::kWhiteout: {
      // Registrations queued so far must not land after the removal.
      CVMFS_RETURN_IF_ERROR(FlushReady(true));
      if (cvmfs::BaseName(e.path) == kCatalogMarker)
        markers_removed_.push_back(std::string(cvmfs::ParentPath(e.path)));
      touched_dirs_.insert(std::string(cvmfs::ParentPath(e.path)));
      changes_->removed++;
      return tree_->Remove(e.path).Annotate("removing " + e.path);
    }
    case UpperEntry::Kind::kDirectory:
      return VisitDirectory(e);
    case UpperEntry::Kind::kRegular:
      return VisitFile(e);
    case UpperEntry::Kind::kSymlink: {
      DirectoryEntry d = BaseEntry(e);
      d.symlink = e.symlink;
      d.size = e.symlink.size();
      d.xattrs.entries.clear();
      changes_->symlinks++;
      CVMFS_RETURN_IF_ERROR(FlushReady(true));
      return tree_->Put(e.path, d).Annotate("publishing " + e.path);
    }
    case UpperEntry::Kind::kSpecial: {
      if (options_.ignore_special_files) return Status::Ok();
      DirectoryEntry d = BaseEntry(e);
      d.size = S_ISCHR(e.st.st_mode) || S_ISBLK(e.st.st_mode) ? e.st.st_rdev : 0;
      changes_->special++;
      CVMFS_RETURN_IF_ERROR(FlushReady(true));
      return tree_->Put(e.path, d).Annotate("publishing " + e.path);
    }
  }
  return Status::Ok();
}

Status Applier::VisitDirectory(const UpperEntry& e) {
  DirectoryEntry d = BaseEntry(e);
  d.size = 4096;
  touched_dirs_.insert(e.path);
  if (e.opaque) {
    CVMFS_RETURN_IF_ERROR(FlushReady(true));
    CVMFS_RETURN_IF_ERROR(tree_->Remove(e.path).Annotate("replacing " + e.path));
    changes_->opaque_directories++;
  }
  if (!e.path.empty()) {
    changes_->directories++;
    CVMFS_RETURN_IF_ERROR(FlushReady(true));
  }
  return tree_->Put(e.path, d).Annotate("publishing " + (e.path.empty() ? "/" : e.path));
}

Status Applier::VisitFile(const UpperEntry& e) {
  auto source = std::make_unique<UpperFileSource>(e.upper_path, e.path, e.st);
  CVMFS_RETURN_IF_ERROR(source->Open());
  if (cvmfs::BaseName(e.path) == kCatalogMarker)
    markers_added_.push_back(std::string(cvmfs::ParentPath(e.path)));
  changes_->files++;
  opened_.push_back(Opened{e.path, BaseEntry(e), static_cast<uint64_t>(e.st.st_size),
                           std::move(source)});
  if (opened_.size() > kReadAheadFiles) CVMFS_RETURN_IF_ERROR(SubmitOldest());
  return FlushReady(false);
}

Status Applier::SubmitOldest() {
  Opened o = std::move(opened_.front());
  opened_.pop_front();
  auto content = pipeline_->Submit(o.source.get(), o.size);
  pending_.push_back(Pending{o.path, o.entry, content});
  return Status::Ok();
}

Status Applier::Register(Pending& p) {
  return PutIngestedFile(p.path, p.entry, p.content.get(), tree_);
}

Status Applier::FlushReady(bool wait_all) {
  while (wait_all && !opened_.empty()) CVMFS_RETURN_IF_ERROR(SubmitOldest());
  while (!pending_.empty() &&
         (wait_all || pending_.size() > kMaxPending || pending_.front().content->Ready())) {
    CVMFS_RETURN_IF_ERROR(Register(pending_.front()));
    pending_.pop_front();
  }
  return Status::Ok();
}

// Deleted markers first (their catalogs merge back), then new markers
// shallow first, then the dirtab.
Status Applier::UpdateNestedCatalogs() {
  for (const std::string& dir : markers_removed_) {
    CVMFS_ASSIGN_OR_RETURN(auto marker, tree_->Lookup(dir + "/" + kCatalogMarker));
    if (marker || !tree_->IsNestedCatalogRoot(dir)) continue;
    CVMFS_RETURN_IF_ERROR(tree_->RemoveNestedCatalog(dir));
    changes_->catalogs_removed++;
  }
  std::sort(markers_added_.begin(), markers_added_.end(),
            [](const std::string& a, const std::string& b) { return Depth(a) < Depth(b); });
  for (const std::string& dir : markers_added_) {
    if (dir.empty() || tree_->IsNestedCatalogRoot(dir)) continue;  // root: ignored, as in CVMFS
    CVMFS_RETURN_IF_ERROR(tree_->CreateNestedCatalog(dir));
    changes_->catalogs_created++;
  }
  if (!options_.apply_dirtab) return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(auto dirtab, LoadDirtab(tree_));
  if (!dirtab) return Status::Ok();
  DirectoryEntry marker;
  marker.mode = S_IFREG | 0644;
  marker.mtime = ::time(nullptr);
  marker.hash_algorithm = options_.hash_algorithm;
  marker.compression = options_.compression;
  std::vector<std::string> dirs(touched_dirs_.begin(), touched_dirs_.end());
  CVMFS_ASSIGN_OR_RETURN(auto created, ApplyDirtab(*dirtab, dirs, marker, tree_, pipeline_));
  changes_->catalogs_created += created.size();
  return Status::Ok();
}

Status Applier::Finish() {
  CVMFS_RETURN_IF_ERROR(FlushReady(true));
  return UpdateNestedCatalogs();
}

}  // namespace

Status ApplyUpperLayer(const std::string& upper_dir, const UpperApplyOptions& options,
                       CatalogTree* tree, IngestPipeline* pipeline, UpperChanges* changes) {
  Applier applier(options, tree, pipeline, changes);
  Status st = ScanUpperLayer(upper_dir, options.scan,
                             [&](const UpperEntry& e) { return applier.Visit(e); });
  if (!st.ok()) {
    pipeline->Drain();
    return st;
  }
  return applier.Finish();
}

}  // namespace publisher
