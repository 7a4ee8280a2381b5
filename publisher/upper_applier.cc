#include "publisher/upper_applier.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>
#include <optional>
#include <set>
#include <vector>

#include "cvmfs/file_util.h"
#include "cvmfs/path_hash.h"
#include "publisher/dirtab_catalogs.h"
#include "publisher/graft_file.h"
#include "publisher/ordered_registration.h"
#include "publisher/virtual_dir.h"

namespace publisher {

using cvmfs::DirectoryEntry;
using cvmfs::Result;
using cvmfs::Status;

namespace {

constexpr char kCatalogMarker[] = ".cvmfscatalog";
// How many files may wait for the pipeline before registration blocks. Each
// holds an open descriptor until a worker has read it, and the kernel reads
// its beginning in the background meanwhile: with a cold page cache, many
// requests in flight keep the disk busy where two readers would wait for it
// one file at a time.
constexpr size_t kMaxPending = 256;
constexpr off_t kReadAheadBytes = 4 << 20;
// Graft files list a file's chunk hashes: 16 MiB hold those of a file of
// terabytes.
constexpr int64_t kMaxGraftBytes = 16 << 20;

// The graft marker beside the upper layer's regular file `e`, if any.
Result<std::optional<Graft>> GraftFor(const UpperEntry& e) {
  const std::string marker = std::string(cvmfs::ParentPath(e.upper_path)) +
                             "/" + kGraftPrefix +
                             std::string(cvmfs::BaseName(e.upper_path));
  struct stat st;
  if (::lstat(marker.c_str(), &st) != 0) {
    if (errno == ENOENT) return std::optional<Graft>();
    return Status::FromErrno(errno, "lstat " + marker);
  }
  if (!S_ISREG(st.st_mode) || st.st_size > kMaxGraftBytes)
    return Status::InvalidArgument("graft file " + marker +
                                   " is not a regular file of at most 16 MiB");
  CVMFS_ASSIGN_OR_RETURN(std::string text, cvmfs::ReadFile(marker));
  CVMFS_ASSIGN_OR_RETURN(Graft graft, ParseGraft(text, marker));
  return std::optional<Graft>(std::move(graft));
}

bool SameVersion(const struct stat& a, const struct stat& b) {
  return a.st_size == b.st_size && a.st_mtim.tv_sec == b.st_mtim.tv_sec &&
         a.st_mtim.tv_nsec == b.st_mtim.tv_nsec && a.st_ino == b.st_ino;
}

// A file of the upper layer that must not change while it is read. Opened
// by the scanner (the publisher's thread, which asks the kernel to read
// ahead) and read by whichever pipeline worker takes it; the descriptor is
// closed with the source, as soon as the worker is done.
class UpperFileSource : public ByteSource {
 public:
  UpperFileSource(std::string path, std::string repo_path,
                  const struct stat& scanned)
      : path_(std::move(path)),
        repo_path_(std::move(repo_path)),
        scanned_(scanned) {}

  // Keeps its own descriptor of the scanner's open file `fd`.
  Status Open(int fd) {
    if (fd >= 0) fd_.Reset(::dup(fd));
    if (!fd_.valid())
      return Status::FromErrno(fd >= 0 ? errno : EBADF, "open " + path_);
    (void)::posix_fadvise(fd_.get(), 0, kReadAheadBytes, POSIX_FADV_WILLNEED);
    return Status::Ok();
  }

  Result<size_t> Read(void* buf, size_t size) override {
    ssize_t n;
    do {
      n = ::read(fd_.get(), buf, size);
    } while (n < 0 && errno == EINTR);
    if (n < 0) return Status::FromErrno(errno, "read " + path_);
    // At the end: the file read must be the one scanned (same inode, size
    // and mtime), else it was replaced or written meanwhile.
    if (n == 0) CVMFS_RETURN_IF_ERROR(CheckUnchanged());
    return static_cast<size_t>(n);
  }

 private:
  Status CheckUnchanged() {
    struct stat now;
    if (::fstat(fd_.get(), &now) != 0)
      return Status::FromErrno(errno, "fstat " + path_);
    if (SameVersion(now, scanned_)) return Status::Ok();
    return Status::IoError(
        repo_path_ + " (" + path_ + ") changed while it was published (size " +
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

size_t Depth(const std::string& p) {
  return std::count(p.begin(), p.end(), '/');
}

class Applier {
 public:
  Applier(const UpperApplyOptions& options, CatalogTree* tree,
          IngestPipeline* pipeline, UpperChanges* changes)
      : options_(options),
        tree_(tree),
        pipeline_(pipeline),
        changes_(changes),
        pending_(kMaxPending, tree) {}

  // Reads the dirtab the new revision will have (upper layer first).
  Status Start(const std::string& upper_dir);
  Status Visit(const UpperEntry& e);
  Status Finish();

 private:
  DirectoryEntry BaseEntry(const UpperEntry& e) const;
  DirectoryEntry MarkerEntry() const;
  Status ApplyDirtabEarly(const std::string& dir);
  Status VisitDirectory(const UpperEntry& e);
  Status VisitFile(const UpperEntry& e);
  Status PutGrafted(const UpperEntry& e, const Graft& graft);
  Status UpdateNestedCatalogs();

  const UpperApplyOptions& options_;
  CatalogTree* tree_;
  IngestPipeline* pipeline_;
  UpperChanges* changes_;
  OrderedRegistration pending_;  // files, registered in scan order
  std::set<std::string> touched_dirs_;
  std::vector<std::string> markers_added_, markers_removed_;
  std::optional<Dirtab> dirtab_;  // of the new revision, when it has one
};

// The new revision's dirtab: the upper layer's file if the transaction
// wrote one (none if it deleted it), else the current revision's.
Status Applier::Start(const std::string& upper_dir) {
  if (!options_.apply_dirtab) return Status::Ok();
  const std::string file = upper_dir + kDirtabPath;
  const std::string whiteout =
      upper_dir + "/.wh." + std::string(kDirtabPath + 1);
  struct stat st;
  if (::lstat(whiteout.c_str(), &st) == 0) return Status::Ok();
  if (::lstat(file.c_str(), &st) != 0) {
    if (errno != ENOENT) return Status::FromErrno(errno, "lstat " + file);
    CVMFS_ASSIGN_OR_RETURN(dirtab_, LoadDirtab(tree_));
    return Status::Ok();
  }
  if (!S_ISREG(st.st_mode))
    return Status::Ok();  // a whiteout device, or published as is
  if (static_cast<uint64_t>(st.st_size) > kMaxDirtabSize)
    return Status::InvalidArgument(
        std::string(kDirtabPath) + " has " + std::to_string(st.st_size) +
        " bytes; a dirtab may have at most " + std::to_string(kMaxDirtabSize));
  CVMFS_ASSIGN_OR_RETURN(std::string text, cvmfs::ReadFile(file));
  CVMFS_ASSIGN_OR_RETURN(Dirtab parsed, Dirtab::Parse(text, kDirtabPath));
  dirtab_ = std::move(parsed);
  return Status::Ok();
}

DirectoryEntry Applier::MarkerEntry() const {
  return DirtabMarker(options_.hash_algorithm, options_.compression);
}

// A directory the dirtab makes a catalog root becomes one as soon as it is
// published, before its contents: they are then written into the new
// catalog once, instead of into its parent and moved afterwards.
Status Applier::ApplyDirtabEarly(const std::string& dir) {
  if (!dirtab_ || dir.empty() || !dirtab_->IsMatching(dir) ||
      tree_->IsNestedCatalogRoot(dir))
    return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(
      auto created,
      ApplyDirtab(*dirtab_, {dir}, MarkerEntry(), tree_, pipeline_));
  changes_->catalogs_created += created.size();
  return Status::Ok();
}

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
  if (IsVirtualDirPath(e.path))
    return Status::InvalidArgument(
        e.path +
        ": /.cvmfs is reserved for the publisher's virtual "
        "directory (CVMFS_VIRTUAL_DIR); a transaction may not "
        "create, change or remove it");
  switch (e.kind) {
    case UpperEntry::Kind::kWhiteout: {
      // Registrations queued so far must not land after the removal.
      CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
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
      CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
      return tree_->Put(e.path, d).Annotate("publishing " + e.path);
    }
    case UpperEntry::Kind::kSpecial: {
      if (options_.ignore_special_files) return Status::Ok();
      DirectoryEntry d = BaseEntry(e);
      d.size =
          S_ISCHR(e.st.st_mode) || S_ISBLK(e.st.st_mode) ? e.st.st_rdev : 0;
      changes_->special++;
      CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
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
    CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
    CVMFS_RETURN_IF_ERROR(
        tree_->Remove(e.path).Annotate("replacing " + e.path));
    changes_->opaque_directories++;
  }
  // Files still in the pipeline need not be registered first: the scan is
  // depth first, so none of them lies at or below this directory, and each
  // is put into whichever catalog holds its path when it is registered.
  if (!e.path.empty()) changes_->directories++;
  CVMFS_RETURN_IF_ERROR(tree_->Put(e.path, d).Annotate(
      "publishing " + (e.path.empty() ? "/" : e.path)));
  return ApplyDirtabEarly(e.path);
}

Status Applier::VisitFile(const UpperEntry& e) {
  const std::string_view name = cvmfs::BaseName(e.path);
  if (IsGraftMarker(name)) return Status::Ok();  // never published
  if (name == kCatalogMarker)
    markers_added_.push_back(std::string(cvmfs::ParentPath(e.path)));
  CVMFS_ASSIGN_OR_RETURN(std::optional<Graft> graft, GraftFor(e));
  if (graft) return PutGrafted(e, *graft);
  changes_->files++;
  auto source = std::make_unique<UpperFileSource>(e.upper_path, e.path, e.st);
  CVMFS_RETURN_IF_ERROR(source->Open(e.fd));
  auto content = pipeline_->SubmitOwned(std::move(source),
                                        static_cast<uint64_t>(e.st.st_size));
  DirectoryEntry d = BaseEntry(e);
  d.external = options_.external_data;
  return pending_.Add(PendingRegistration{e.path, d, std::move(content)});
}

// As CVMFS: the marker's size, hash, chunks and compression, the file's
// mode, owner and mtime, no extended attributes; external as any new file.
Status Applier::PutGrafted(const UpperEntry& e, const Graft& graft) {
  DirectoryEntry d = BaseEntry(e);
  d.xattrs.entries.clear();
  d.size = graft.size;
  d.hash_algorithm = graft.checksum.algorithm;
  d.compression = graft.compression.value_or(options_.compression);
  d.external = options_.external_data;
  d.chunked = !graft.chunks.empty();
  d.content_hash = graft.checksum;
  changes_->files++;
  CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
  return tree_->Put(e.path, d, graft.chunks).Annotate("grafting " + e.path);
}

// Deleted markers first (their catalogs merge back), then new markers
// shallow first, then the dirtab.
Status Applier::UpdateNestedCatalogs() {
  for (const std::string& dir : markers_removed_) {
    CVMFS_ASSIGN_OR_RETURN(auto marker,
                           tree_->Lookup(dir + "/" + kCatalogMarker));
    if (marker || !tree_->IsNestedCatalogRoot(dir)) continue;
    CVMFS_RETURN_IF_ERROR(tree_->RemoveNestedCatalog(dir));
    changes_->catalogs_removed++;
  }
  std::sort(markers_added_.begin(), markers_added_.end(),
            [](const std::string& a, const std::string& b) {
              return Depth(a) < Depth(b);
            });
  for (const std::string& dir : markers_added_) {
    if (dir.empty() || tree_->IsNestedCatalogRoot(dir))
      continue;  // root: ignored, as in CVMFS
    CVMFS_RETURN_IF_ERROR(tree_->CreateNestedCatalog(dir));
    changes_->catalogs_created++;
  }
  if (!options_.apply_dirtab) return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(auto dirtab, LoadDirtab(tree_));
  if (!dirtab) return Status::Ok();
  std::vector<std::string> dirs(touched_dirs_.begin(), touched_dirs_.end());
  CVMFS_ASSIGN_OR_RETURN(auto created, ApplyDirtab(*dirtab, dirs, MarkerEntry(),
                                                   tree_, pipeline_));
  changes_->catalogs_created += created.size();
  return Status::Ok();
}

Status Applier::Finish() {
  CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
  return UpdateNestedCatalogs();
}

}  // namespace

Status ApplyUpperLayer(const std::string& upper_dir,
                       const UpperApplyOptions& options, CatalogTree* tree,
                       IngestPipeline* pipeline, UpperChanges* changes) {
  Applier applier(options, tree, pipeline, changes);
  CVMFS_RETURN_IF_ERROR(applier.Start(upper_dir));
  Status st = ScanUpperLayer(upper_dir, options.scan, [&](const UpperEntry& e) {
    return applier.Visit(e);
  });
  if (!st.ok()) {
    pipeline->Drain();
    return st;
  }
  return applier.Finish();
}

}  // namespace publisher
