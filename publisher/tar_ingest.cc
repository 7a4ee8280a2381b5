#include "publisher/tar_ingest.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <algorithm>
#include <ctime>
#include <map>
#include <memory>
#include <set>

#include "cvmfs/path_hash.h"
#include "publisher/dirtab_catalogs.h"
#include "publisher/ordered_registration.h"

namespace publisher {

using cvmfs::DirectoryEntry;
using cvmfs::Result;
using cvmfs::Status;

namespace {

constexpr size_t kMaxNameLength = 255;
// How many files may wait for the pipeline before registration blocks.
constexpr size_t kMaxPending = 4096;

struct ArchiveCloser {
  void operator()(archive* a) const { archive_read_free(a); }
};

// libarchive's message for the last error, which may be NULL (some
// failures set none): never hand that to a std::string.
std::string ArchiveError(archive* a) {
  const char* why = archive_error_string(a);
  return why ? why : "unreadable archive";
}

class ArchiveSource : public ByteSource {
 public:
  explicit ArchiveSource(archive* a) : a_(a) {}
  Result<size_t> Read(void* buf, size_t size) override {
    la_ssize_t n = archive_read_data(a_, buf, size);
    if (n < 0) return Status::Corruption("tar: " + ArchiveError(a_));
    return static_cast<size_t>(n);
  }

 private:
  archive* a_;
};

class TarIngester {
 public:
  TarIngester(const TarIngestOptions& options, CatalogTree* tree,
              IngestPipeline* pipeline)
      : options_(options),
        tree_(tree),
        pipeline_(pipeline),
        pending_(kMaxPending, tree) {}

  Status Run();

 private:
  Status ProcessMember(archive* a, archive_entry* e);
  Status EnsureDirectory(const std::string& path);
  DirectoryEntry BaseEntry(archive_entry* e) const;
  Status ReadXattrs(archive_entry* e, DirectoryEntry* entry) const;
  Status RegisterHardlinkGroups();
  Status CreateNestedCatalogs();

  const TarIngestOptions& options_;
  CatalogTree* tree_;
  IngestPipeline* pipeline_;
  std::string base_;
  std::set<std::string> known_dirs_;
  // Directories the tarball creates or touches (for the dirtab).
  std::set<std::string> touched_dirs_;
  OrderedRegistration pending_;  // file members, registered in tar order
  // Content of file members by path, for hardlinks to refer to.
  std::map<std::string, std::shared_ptr<PendingFile>> contents_;
  // Hardlink groups: first member path -> all member paths (same directory).
  std::map<std::string, std::vector<std::string>> groups_;
  std::map<std::string, std::string> group_of_;  // member -> first member
  // Hardlink group members, registered last.
  std::map<std::string, PendingRegistration> deferred_;
  std::vector<std::string> catalog_markers_;
};

}  // namespace

Result<std::string> NormalizeRepoPath(const std::string& path) {
  std::string out;
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    std::string comp = path.substr(pos, slash - pos);
    pos = slash + 1;
    if (comp.empty() || comp == ".") continue;
    if (comp == "..")
      return Status::InvalidArgument("path '" + path + "' contains '..'");
    if (comp.size() > kMaxNameLength)
      return Status::InvalidArgument("name '" + comp.substr(0, 40) +
                                     "...' in '" + path +
                                     "' is longer than 255 bytes");
    out += "/" + comp;
  }
  return out;
}

DirectoryEntry TarIngester::BaseEntry(archive_entry* e) const {
  DirectoryEntry d;
  d.mode = archive_entry_mode(e);
  d.uid = static_cast<uint32_t>(archive_entry_uid(e));
  d.gid = static_cast<uint32_t>(archive_entry_gid(e));
  d.mtime = archive_entry_mtime(e);
  d.hash_algorithm = options_.hash_algorithm;
  d.compression = options_.compression;
  return d;
}

Status TarIngester::ReadXattrs(archive_entry* e, DirectoryEntry* entry) const {
  if (!options_.include_xattrs) return Status::Ok();
  if (archive_entry_xattr_reset(e) == 0) return Status::Ok();
  const char* name;
  const void* value;
  size_t size;
  while (archive_entry_xattr_next(e, &name, &value, &size) == ARCHIVE_OK) {
    std::string key(name);
    if (key.size() > 255 || size > 255)
      return Status::InvalidArgument(
          "extended attribute " + key +
          " is too long for the catalog (keys and values up to 255 bytes)");
    entry->xattrs.entries.emplace_back(
        key, std::string(static_cast<const char*>(value), size));
  }
  if (entry->xattrs.entries.size() > 256)
    return Status::InvalidArgument("more than 256 extended attributes");
  return Status::Ok();
}

Status TarIngester::EnsureDirectory(const std::string& path) {
  if (path.empty() || known_dirs_.count(path)) return Status::Ok();
  CVMFS_RETURN_IF_ERROR(EnsureDirectory(std::string(cvmfs::ParentPath(path))));
  CVMFS_ASSIGN_OR_RETURN(auto existing, tree_->Lookup(path));
  if (existing && existing->IsDirectory()) {
    known_dirs_.insert(path);
    return Status::Ok();
  }
  DirectoryEntry d;
  d.mode = S_IFDIR | 0755;
  d.size = 4096;
  d.mtime = ::time(nullptr);
  d.hash_algorithm = options_.hash_algorithm;
  CVMFS_RETURN_IF_ERROR(tree_->Put(path, d));
  known_dirs_.insert(path);
  touched_dirs_.insert(path);
  return Status::Ok();
}

Status TarIngester::ProcessMember(archive* a, archive_entry* e) {
  const char* raw_name = archive_entry_pathname(e);
  if (!raw_name) return Status::Corruption("tar member without a name");
  CVMFS_ASSIGN_OR_RETURN(std::string rel, NormalizeRepoPath(raw_name));
  if (rel.empty()) return Status::Ok();  // the base directory itself
  std::string path = base_ + rel;
  std::string parent(cvmfs::ParentPath(path));
  CVMFS_RETURN_IF_ERROR(EnsureDirectory(parent));
  touched_dirs_.insert(parent);

  DirectoryEntry entry = BaseEntry(e);
  CVMFS_RETURN_IF_ERROR(ReadXattrs(e, &entry).Annotate(path));

  if (const char* link = archive_entry_hardlink(e)) {
    CVMFS_ASSIGN_OR_RETURN(std::string target_rel, NormalizeRepoPath(link));
    std::string target = base_ + target_rel;
    auto content = contents_.find(target);
    if (content == contents_.end())
      return Status::InvalidArgument(
          "hardlink " + path + " refers to " + target +
          ", which is not a regular file earlier in the archive");
    entry.mode = (entry.mode & 07777) | S_IFREG;
    PendingRegistration p{path, entry, content->second};
    contents_[path] = content->second;
    known_dirs_.erase(path);
    if (cvmfs::ParentPath(target) == cvmfs::ParentPath(path)) {
      std::string first = group_of_.count(target) ? group_of_[target] : target;
      if (groups_[first].empty()) {
        groups_[first].push_back(first);
        group_of_[first] = first;
      }
      groups_[first].push_back(path);
      group_of_[path] = first;
      deferred_[path] = std::move(p);
      return pending_.FlushReady();
    }
    // CVMFS keeps only same-directory groups: this one is a separate copy.
    return pending_.Add(std::move(p));
  }

  switch (archive_entry_filetype(e)) {
    case AE_IFDIR:
      entry.size = 4096;
      CVMFS_RETURN_IF_ERROR(tree_->Put(path, entry));
      known_dirs_.insert(path);
      touched_dirs_.insert(path);
      return Status::Ok();
    case AE_IFREG: {
      known_dirs_.erase(path);
      std::optional<uint64_t> size;
      if (archive_entry_size_is_set(e))
        size = static_cast<uint64_t>(archive_entry_size(e));
      ArchiveSource source(a);
      auto content = pipeline_->Submit(&source, size);
      contents_[path] = content;
      if (cvmfs::BaseName(path) == ".cvmfscatalog")
        catalog_markers_.push_back(parent);
      return pending_.Add(PendingRegistration{path, entry, content});
    }
    case AE_IFLNK: {
      const char* target = archive_entry_symlink(e);
      entry.symlink = target ? target : "";
      entry.size = entry.symlink.size();
      known_dirs_.erase(path);
      // Keep the order of registrations: the link may replace a pending file.
      CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
      return tree_->Put(path, entry);
    }
    case AE_IFIFO:
    case AE_IFSOCK:
    case AE_IFCHR:
    case AE_IFBLK: {
      if (options_.ignore_special_files) return Status::Ok();
      entry.size = (archive_entry_filetype(e) == AE_IFCHR ||
                    archive_entry_filetype(e) == AE_IFBLK)
                       ? static_cast<uint64_t>(archive_entry_rdev(e))
                       : 0;
      known_dirs_.erase(path);
      CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
      return tree_->Put(path, entry);
    }
    default:
      return Status::InvalidArgument("tar member " + path +
                                     " has an unsupported file type");
  }
}

Status TarIngester::Run() {
  CVMFS_ASSIGN_OR_RETURN(base_, NormalizeRepoPath(options_.base_dir));
  for (const std::string& d : options_.delete_paths) {
    CVMFS_ASSIGN_OR_RETURN(std::string path, NormalizeRepoPath(d));
    if (path.empty())
      return Status::InvalidArgument(
          "-d: refusing to delete the repository root");
    CVMFS_RETURN_IF_ERROR(tree_->Remove(path));
  }
  CVMFS_RETURN_IF_ERROR(EnsureDirectory(base_));
  touched_dirs_.insert(base_);

  std::unique_ptr<archive, ArchiveCloser> a(archive_read_new());
  archive_read_support_filter_all(a.get());
  archive_read_support_format_all(a.get());
  int rc = options_.tarball == "-"
               ? archive_read_open_fd(a.get(), 0, 1 << 20)
               : archive_read_open_filename(a.get(), options_.tarball.c_str(),
                                            1 << 20);
  if (rc != ARCHIVE_OK)
    return Status::InvalidArgument("cannot read tarball " + options_.tarball +
                                   ": " + ArchiveError(a.get()));
  for (;;) {
    archive_entry* e = nullptr;
    rc = archive_read_next_header(a.get(), &e);
    if (rc == ARCHIVE_EOF) break;
    if (rc == ARCHIVE_RETRY) continue;
    if (rc < ARCHIVE_WARN)
      return Status::Corruption("tarball " + options_.tarball + ": " +
                                ArchiveError(a.get()));
    Status st = ProcessMember(a.get(), e);
    if (!st.ok()) {
      pipeline_->Drain();
      return st;
    }
  }
  CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
  CVMFS_RETURN_IF_ERROR(RegisterHardlinkGroups());
  return CreateNestedCatalogs();
}

// Hardlink groups, once every member is known.
Status TarIngester::RegisterHardlinkGroups() {
  uint32_t next_group = 1;
  for (auto& [first, members] : groups_) {
    uint32_t group = next_group++;
    for (const std::string& m : members) {
      PendingRegistration p;
      auto d = deferred_.find(m);
      if (d != deferred_.end()) {
        p = std::move(d->second);
      } else {
        CVMFS_ASSIGN_OR_RETURN(auto entry, tree_->Lookup(m));
        if (!entry) continue;
        p = PendingRegistration{m, *entry, contents_[m]};
      }
      p.entry.hardlink_group = group;
      p.entry.linkcount = static_cast<uint32_t>(members.size());
      CVMFS_RETURN_IF_ERROR(RegisterIngestedFile(p, tree_));
    }
  }
  return Status::Ok();
}

// `.cvmfscatalog` members first, then the dirtab's rules; shallow first.
Status TarIngester::CreateNestedCatalogs() {
  std::sort(catalog_markers_.begin(), catalog_markers_.end(),
            [](const std::string& x, const std::string& y) {
              return x.size() < y.size();
            });
  for (const std::string& dir : catalog_markers_) {
    if (dir.empty()) continue;  // CVMFS ignores a marker in the root
    CVMFS_RETURN_IF_ERROR(tree_->CreateNestedCatalog(dir));
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
  return ApplyDirtab(*dirtab, dirs, marker, tree_, pipeline_).status();
}

Status IngestTar(const TarIngestOptions& options, CatalogTree* tree,
                 IngestPipeline* pipeline) {
  TarIngester ingester(options, tree, pipeline);
  return ingester.Run();
}

}  // namespace publisher
