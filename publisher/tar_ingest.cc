#include "publisher/tar_ingest.h"

#include <archive.h>
#include <archive_entry.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <ctime>
#include <map>
#include <memory>
#include <set>
#include <string_view>

#include "cvmfs/path_hash.h"
#include "publisher/dirtab_catalogs.h"
#include "publisher/ordered_registration.h"
#include "publisher/tar_stream.h"
#include "publisher/virtual_dir.h"

namespace publisher {

using cvmfs::DirectoryEntry;
using cvmfs::Result;
using cvmfs::Status;

namespace {

constexpr size_t kMaxNameLength = 255;
// How many files may wait for the pipeline before registration blocks.
constexpr size_t kMaxPending = 4096;
// How many non-directory members are remembered in memory: beyond it, what
// is queued is registered and forgotten, and later questions about those
// members (a hardlink target, a path replaced again) are answered by the
// catalog tree, so memory does not grow with the number of files.
constexpr size_t kMemberWindow = 2 * kMaxPending;

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
  Status ReadMembers(TarStream* stream);
  Status ProcessMember(TarStream* stream, archive_entry* e);
  Status PlaceMember(TarStream* stream, archive_entry* e,
                     const std::string& path, DirectoryEntry entry);
  Status PlaceMemberOfType(TarStream* stream, archive_entry* e,
                           const std::string& path, DirectoryEntry entry);
  Status PlaceHardlink(const std::string& path, const std::string& link,
                       DirectoryEntry entry);
  Status CheckLimits(archive_entry* e, const std::string& path) const;
  Status EnsureDirectory(const std::string& path);
  // Before a member goes to `path`: an earlier entry there (of this tarball
  // or of the published tree) gives way to it.
  Status Replace(const std::string& path, bool is_directory);
  void ForgetBelow(const std::string& dir);
  void LeaveHardlinkGroup(const std::string& path);
  // A replaced .cvmfscatalog no longer marks its directory.
  void ForgetCatalogMarker(const std::string& path);
  Result<DirectoryEntry> BaseEntry(archive_entry* e) const;
  Status ReadXattrs(archive_entry* e, DirectoryEntry* entry) const;
  Status RegisterHardlinkGroups();
  // Registers what is queued and forgets the members the tree now holds
  // (all but hardlink group members), once the window is full.
  Status ForgetRegistered();
  // The content of the regular file at `target`: this tarball's (queued or
  // not) or the tree's; null if it is not a regular file.
  Result<std::shared_ptr<PendingFile>> ContentOf(const std::string& target);
  Status CreateNestedCatalogs();
  // Records that the tarball creates or touches directory `dir`; a new one
  // that the dirtab matches becomes a nested catalog at once, so that its
  // entries are written there and never moved (dirtab_catalogs.h).
  Status Touch(const std::string& dir);
  // The dirtab as the tree has it now (after a /.cvmfsdirtab member).
  Status ReloadDirtab();
  cvmfs::DirectoryEntry MarkerEntry() const;
  // Eager catalogs the final dirtab no longer matches are merged back.
  Status UndoUnmatchedEagerCatalogs(const std::optional<Dirtab>& dirtab);

  const TarIngestOptions& options_;
  CatalogTree* tree_;
  IngestPipeline* pipeline_;
  std::string base_;
  std::set<std::string> known_dirs_;
  // Recent non-directory members (the window, kMemberWindow) and hardlink
  // group members, by path: their file type (AE_IF*).
  std::map<std::string, unsigned> non_dirs_;
  // Of those, the files queued for registration: their number in pending_
  // (OrderedRegistration::added() when queued).
  std::map<std::string, uint64_t> queued_at_;
  // Directories the tarball creates or touches (for the dirtab).
  std::set<std::string> touched_dirs_;
  OrderedRegistration pending_;  // file members, registered in tar order
  // Content of recent file members by path, for hardlinks to refer to (older
  // ones are in the tree).
  std::map<std::string, std::shared_ptr<PendingFile>> contents_;
  // Hardlink groups (same directory): their member paths, the first being
  // the regular file the others link to; and each member's group.
  std::vector<std::vector<std::string>> groups_;
  std::map<std::string, size_t> group_of_;
  // Hardlink group members, registered last.
  std::map<std::string, PendingRegistration> deferred_;
  std::vector<std::string> catalog_markers_;
  // The dirtab in effect while members are read (nullopt: none, or one
  // that does not load; the final pass reports that), and the nested
  // catalogs it made at once.
  std::optional<Dirtab> dirtab_;
  struct EagerCatalog {
    std::string dir;
    bool marker_created;  // its .cvmfscatalog is ours, not the tarball's
  };
  std::vector<EagerCatalog> eager_catalogs_;
  std::optional<cvmfs::Digest> empty_file_;  // the marker's content
};

const char* TypeName(unsigned type) {
  switch (type) {
    case AE_IFREG:
      return "a regular file";
    case AE_IFLNK:
      return "a symbolic link";
    case AE_IFIFO:
      return "a fifo";
    case AE_IFSOCK:
      return "a socket";
    case AE_IFCHR:
      return "a character device";
    case AE_IFBLK:
      return "a block device";
    default:
      return "not a directory";
  }
}

bool HasPrefix(const std::string& s, const std::string& prefix) {
  return s.compare(0, prefix.size(), prefix) == 0;
}

const std::string& KeyOf(const std::string& key) { return key; }
template <typename V>
const std::string& KeyOf(const std::pair<const std::string, V>& item) {
  return item.first;
}

// Erases the keys of a sorted container that start with `prefix`.
template <typename Container>
void EraseWithPrefix(Container* c, const std::string& prefix) {
  auto first = c->lower_bound(prefix);
  auto last = first;
  while (last != c->end() && HasPrefix(KeyOf(*last), prefix)) ++last;
  c->erase(first, last);
}

// A member's name for a message: long ones are cut.
std::string MemberName(const char* raw) {
  std::string_view name(raw);
  if (name.size() <= 120) return "tar member '" + std::string(name) + "'";
  return "tar member '" + std::string(name.substr(0, 60)) + "..." +
         std::string(name.substr(name.size() - 40)) + "' (" +
         std::to_string(name.size()) + " bytes)";
}

}  // namespace

Result<std::string> NormalizeRepoPath(const std::string& path) {
  std::string out;
  out.reserve(path.size() + 1);
  size_t pos = 0;
  while (pos <= path.size()) {
    size_t slash = path.find('/', pos);
    if (slash == std::string::npos) slash = path.size();
    std::string_view comp(path.data() + pos, slash - pos);
    pos = slash + 1;
    if (comp.empty() || comp == ".") continue;
    if (comp == "..")
      return Status::InvalidArgument("path '" + path + "' contains '..'");
    if (comp.size() > kMaxNameLength)
      return Status::InvalidArgument(
          "name '" + std::string(comp.substr(0, 40)) + "...' in '" + path +
          "' is longer than 255 bytes");
    out += '/';
    out += comp;
  }
  return out;
}

Result<DirectoryEntry> TarIngester::BaseEntry(archive_entry* e) const {
  // An id that does not fit the catalog's 32 bits is refused, never cut
  // (to 0, root, for 2^32).
  const la_int64_t uid = archive_entry_uid(e), gid = archive_entry_gid(e);
  for (auto [what, id] : {std::pair{"uid", uid}, std::pair{"gid", gid}}) {
    if (id < 0 || id > UINT32_MAX)
      return Status::InvalidArgument(std::string(what) + " " +
                                     std::to_string(id) +
                                     " does not fit 32 bits");
  }
  DirectoryEntry d;
  d.mode = archive_entry_mode(e);
  d.uid = static_cast<uint32_t>(uid);
  d.gid = static_cast<uint32_t>(gid);
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
  auto member = non_dirs_.find(path);
  if (member != non_dirs_.end())
    return Status::InvalidArgument("parent " + path + " is " +
                                   TypeName(member->second) +
                                   ", not a directory");
  CVMFS_RETURN_IF_ERROR(EnsureDirectory(std::string(cvmfs::ParentPath(path))));
  CVMFS_ASSIGN_OR_RETURN(auto existing, tree_->Lookup(path));
  if (existing && existing->IsDirectory()) {
    known_dirs_.insert(path);
    return Status::Ok();
  }
  if (existing)
    return Status::InvalidArgument("parent " + path + " is " +
                                   TypeName(existing->mode & S_IFMT) +
                                   " in the published tree, not a directory");
  DirectoryEntry d;
  d.mode = S_IFDIR | 0755;
  d.size = 4096;
  d.mtime = ::time(nullptr);
  d.hash_algorithm = options_.hash_algorithm;
  CVMFS_RETURN_IF_ERROR(tree_->Put(path, d));
  known_dirs_.insert(path);
  return Touch(path);
}

Status TarIngester::Touch(const std::string& dir) {
  if (!touched_dirs_.insert(dir).second) return Status::Ok();
  if (!dirtab_ || dir.empty() || !dirtab_->IsMatching(dir)) return Status::Ok();
  if (tree_->IsNestedCatalogRoot(dir)) return Status::Ok();
  // Whatever is queued for the directory lands in the new catalog.
  std::vector<std::string> markers;
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> created,
                         ApplyDirtab(*dirtab_, {dir}, MarkerEntry(), tree_,
                                     pipeline_, &empty_file_, &markers));
  for (const std::string& c : created)
    eager_catalogs_.push_back(
        {c, std::find(markers.begin(), markers.end(), c) != markers.end()});
  return Status::Ok();
}

Status TarIngester::ReloadDirtab() {
  dirtab_.reset();
  if (!options_.apply_dirtab) return Status::Ok();
  CVMFS_RETURN_IF_ERROR(pending_.FlushAll());  // the tree has the member
  auto dirtab = LoadDirtab(tree_);
  if (dirtab.ok()) dirtab_ = std::move(*dirtab);
  return Status::Ok();
}

DirectoryEntry TarIngester::MarkerEntry() const {
  return DirtabMarker(options_.hash_algorithm, options_.compression);
}

// Forgets what is known of the tarball's entries strictly below `dir`.
void TarIngester::ForgetBelow(const std::string& dir) {
  const std::string prefix = dir + "/";
  std::vector<std::string> linked;
  for (auto it = group_of_.lower_bound(prefix);
       it != group_of_.end() && HasPrefix(it->first, prefix); ++it)
    linked.push_back(it->first);
  for (const std::string& p : linked) LeaveHardlinkGroup(p);
  EraseWithPrefix(&known_dirs_, prefix);
  EraseWithPrefix(&non_dirs_, prefix);
  EraseWithPrefix(&queued_at_, prefix);
  EraseWithPrefix(&touched_dirs_, prefix);
  EraseWithPrefix(&contents_, prefix);
  catalog_markers_.erase(
      std::remove_if(catalog_markers_.begin(), catalog_markers_.end(),
                     [&](const std::string& m) {
                       return m == dir || HasPrefix(m, prefix);
                     }),
      catalog_markers_.end());
}

void TarIngester::LeaveHardlinkGroup(const std::string& path) {
  auto g = group_of_.find(path);
  if (g == group_of_.end()) return;
  std::vector<std::string>& members = groups_[g->second];
  members.erase(std::remove(members.begin(), members.end(), path),
                members.end());
  group_of_.erase(g);
  deferred_.erase(path);
}

Status TarIngester::Replace(const std::string& path, bool is_directory) {
  const bool was_member = non_dirs_.count(path) > 0;
  const bool was_dir = known_dirs_.count(path) > 0;
  // (What the tarball knows below a directory of the published tree is in
  // known_dirs_ with that directory. A member forgotten by ForgetRegistered
  // is in the tree and in no hardlink group: the Put replaces it.)
  if (!was_member && !was_dir) {
    ForgetCatalogMarker(path);
    return Status::Ok();
  }
  if (was_dir && is_directory) return Status::Ok();
  // Registrations keep the tarball's order: what was queued for this path
  // lands before the member that replaces it.
  CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
  LeaveHardlinkGroup(path);
  non_dirs_.erase(path);
  queued_at_.erase(path);
  contents_.erase(path);
  if (was_dir) {
    ForgetBelow(path);
    known_dirs_.erase(path);
  }
  ForgetCatalogMarker(path);
  return Status::Ok();
}

void TarIngester::ForgetCatalogMarker(const std::string& path) {
  if (cvmfs::BaseName(path) != ".cvmfscatalog") return;
  std::string dir(cvmfs::ParentPath(path));
  catalog_markers_.erase(
      std::remove(catalog_markers_.begin(), catalog_markers_.end(), dir),
      catalog_markers_.end());
}

Status TarIngester::CheckLimits(archive_entry* e,
                                const std::string& path) const {
  const size_t prefix = std::string("/cvmfs/").size() + options_.fqrn.size();
  if (prefix + path.size() > kMaxClientPathLength)
    return Status::InvalidArgument(
        "the path is " + std::to_string(prefix + path.size()) +
        " bytes as clients see it (/cvmfs/" + options_.fqrn +
        path.substr(0, 40) + "...), more than " +
        std::to_string(kMaxClientPathLength));
  if (archive_entry_filetype(e) == AE_IFLNK && !archive_entry_hardlink(e)) {
    const char* target = archive_entry_symlink(e);
    size_t length = target ? std::strlen(target) : 0;
    if (length > kMaxClientPathLength)
      return Status::InvalidArgument(
          "symlink target of " + std::to_string(length) + " bytes, more than " +
          std::to_string(kMaxClientPathLength));
  }
  return Status::Ok();
}

namespace {
// /.cvmfs is the publisher's (virtual_dir.h), as in a transaction.
Status RefuseVirtualDir(const std::string& path) {
  if (!IsVirtualDirPath(path)) return Status::Ok();
  return Status::InvalidArgument(
      path +
      ": /.cvmfs is reserved for the publisher's virtual directory "
      "(CVMFS_VIRTUAL_DIR)");
}
}  // namespace

Status TarIngester::ProcessMember(TarStream* stream, archive_entry* e) {
  const char* raw_name = archive_entry_pathname(e);
  if (!raw_name) return Status::Corruption("tar member without a name");
  auto rel = NormalizeRepoPath(raw_name);
  if (!rel.ok()) return rel.status();
  if (rel->empty()) return Status::Ok();  // the base directory itself
  const std::string path = base_ + *rel;
  Status st = RefuseVirtualDir(path);
  if (st.ok()) st = CheckLimits(e, path);
  auto entry = BaseEntry(e);
  if (st.ok()) st = entry.status();
  if (st.ok()) st = EnsureDirectory(std::string(cvmfs::ParentPath(path)));
  if (st.ok()) st = ReadXattrs(e, &*entry);
  if (st.ok()) st = PlaceMember(stream, e, path, std::move(*entry));
  return st.Annotate(MemberName(raw_name));
}

Status TarIngester::PlaceHardlink(const std::string& path,
                                  const std::string& link,
                                  DirectoryEntry entry) {
  CVMFS_ASSIGN_OR_RETURN(std::string target_rel, NormalizeRepoPath(link));
  const std::string target = base_ + target_rel;
  CVMFS_ASSIGN_OR_RETURN(std::shared_ptr<PendingFile> shared,
                         ContentOf(target));
  if (!shared)
    return Status::InvalidArgument(
        "hardlink " + path + " refers to " + target +
        ", which is not a regular file earlier in the archive");
  if (path == target) return Status::Ok();  // a link to itself
  CVMFS_RETURN_IF_ERROR(Replace(path, false));
  entry.mode = (entry.mode & 07777) | S_IFREG;
  PendingRegistration p{path, entry, shared};
  contents_[path] = shared;
  non_dirs_[path] = AE_IFREG;
  if (cvmfs::ParentPath(target) != cvmfs::ParentPath(path)) {
    // CVMFS keeps only same-directory groups: this one is a separate copy.
    queued_at_[path] = pending_.added();
    return pending_.Add(std::move(p));
  }
  auto g = group_of_.find(target);
  size_t group = 0;
  if (g != group_of_.end()) {
    group = g->second;
  } else {
    group = groups_.size();
    groups_.push_back({target});
    group_of_[target] = group;
  }
  groups_[group].push_back(path);
  group_of_[path] = group;
  deferred_[path] = std::move(p);
  return pending_.FlushReady();
}

Status TarIngester::PlaceMember(TarStream* stream, archive_entry* e,
                                const std::string& path, DirectoryEntry entry) {
  const std::string parent(cvmfs::ParentPath(path));
  CVMFS_RETURN_IF_ERROR(Touch(parent));
  if (path == kDirtabPath) {
    // The rules change with this member, whatever it is.
    CVMFS_RETURN_IF_ERROR(PlaceMemberOfType(stream, e, path, std::move(entry)));
    return ReloadDirtab();
  }
  return PlaceMemberOfType(stream, e, path, std::move(entry));
}

Status TarIngester::PlaceMemberOfType(TarStream* stream, archive_entry* e,
                                      const std::string& path,
                                      DirectoryEntry entry) {
  const std::string parent(cvmfs::ParentPath(path));
  if (const char* link = archive_entry_hardlink(e))
    return PlaceHardlink(path, link, std::move(entry));

  const unsigned type = archive_entry_filetype(e);
  switch (type) {
    case AE_IFDIR:
      CVMFS_RETURN_IF_ERROR(Replace(path, true));
      entry.size = 4096;
      CVMFS_RETURN_IF_ERROR(tree_->Put(path, entry));
      known_dirs_.insert(path);
      return Touch(path);
    case AE_IFREG: {
      CVMFS_RETURN_IF_ERROR(Replace(path, false));
      std::optional<uint64_t> size;
      if (archive_entry_size_is_set(e))
        size = static_cast<uint64_t>(archive_entry_size(e));
      std::unique_ptr<ByteSource> source = stream->Content(e);
      auto content = pipeline_->Submit(source.get(), size);
      contents_[path] = content;
      non_dirs_[path] = AE_IFREG;
      queued_at_[path] = pending_.added();
      if (cvmfs::BaseName(path) == ".cvmfscatalog")
        catalog_markers_.push_back(parent);
      entry.external = options_.external_data;
      CVMFS_RETURN_IF_ERROR(
          pending_.Add(PendingRegistration{path, entry, content}));
      return ForgetRegistered();
    }
    case AE_IFLNK: {
      CVMFS_RETURN_IF_ERROR(Replace(path, false));
      const char* target = archive_entry_symlink(e);
      entry.symlink = target ? target : "";
      entry.size = entry.symlink.size();
      non_dirs_[path] = type;
      // Keep the order of registrations: the link may replace a pending file.
      CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
      return tree_->Put(path, entry);
    }
    case AE_IFIFO:
    case AE_IFSOCK:
    case AE_IFCHR:
    case AE_IFBLK: {
      if (options_.ignore_special_files) return Status::Ok();
      CVMFS_RETURN_IF_ERROR(Replace(path, false));
      entry.size = (type == AE_IFCHR || type == AE_IFBLK)
                       ? static_cast<uint64_t>(archive_entry_rdev(e))
                       : 0;
      non_dirs_[path] = type;
      CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
      return tree_->Put(path, entry);
    }
    default:
      return Status::InvalidArgument("unsupported file type");
  }
}

Status TarIngester::ReadMembers(TarStream* stream) {
  for (;;) {
    CVMFS_ASSIGN_OR_RETURN(archive_entry * e, stream->Next());
    if (!e) return Status::Ok();
    CVMFS_RETURN_IF_ERROR(ProcessMember(stream, e));
  }
}

Status TarIngester::Run() {
  CVMFS_ASSIGN_OR_RETURN(base_, NormalizeRepoPath(options_.base_dir));
  CVMFS_RETURN_IF_ERROR(RefuseVirtualDir(base_).Annotate("-b"));
  if (std::string("/cvmfs/").size() + options_.fqrn.size() + base_.size() >
      kMaxClientPathLength)
    return Status::InvalidArgument("-b: the base directory is longer than " +
                                   std::to_string(kMaxClientPathLength) +
                                   " bytes as clients see it");
  // The archive is opened (its format recognized) before anything changes.
  CVMFS_ASSIGN_OR_RETURN(auto stream, TarStream::Open(options_.tarball));
  for (const std::string& d : options_.delete_paths) {
    CVMFS_ASSIGN_OR_RETURN(std::string path, NormalizeRepoPath(d));
    if (path.empty())
      return Status::InvalidArgument(
          "-d: refusing to delete the repository root");
    CVMFS_RETURN_IF_ERROR(RefuseVirtualDir(path).Annotate("-d"));
    CVMFS_RETURN_IF_ERROR(tree_->Remove(path));
  }
  if (options_.apply_dirtab) {
    auto dirtab = LoadDirtab(tree_);
    if (dirtab.ok()) dirtab_ = std::move(*dirtab);
  }
  CVMFS_RETURN_IF_ERROR(EnsureDirectory(base_).Annotate("-b " + base_));
  CVMFS_RETURN_IF_ERROR(Touch(base_));

  Status st = ReadMembers(stream.get());
  if (!st.ok()) {
    pipeline_->Drain();
    return st;
  }
  CVMFS_RETURN_IF_ERROR(pending_.FlushAll());
  CVMFS_RETURN_IF_ERROR(RegisterHardlinkGroups());
  return CreateNestedCatalogs();
}

// Hardlink groups, once every member is known. A group that later members
// left with one name registers it as a plain file.
Status TarIngester::RegisterHardlinkGroups() {
  uint32_t next_group = 1;
  for (auto& members : groups_) {
    if (members.empty()) continue;
    uint32_t group = members.size() > 1 ? next_group++ : 0;
    for (const std::string& m : members) {
      PendingRegistration p;
      auto d = deferred_.find(m);
      if (d != deferred_.end()) {
        p = std::move(d->second);
      } else {
        if (members.size() == 1) continue;  // registered as it was
        CVMFS_ASSIGN_OR_RETURN(auto entry, tree_->Lookup(m));
        if (!entry) continue;
        CVMFS_ASSIGN_OR_RETURN(auto content, ContentOf(m));
        if (!content) continue;
        p = PendingRegistration{m, *entry, content};
      }
      p.entry.hardlink_group = group;
      p.entry.linkcount = static_cast<uint32_t>(members.size());
      CVMFS_RETURN_IF_ERROR(RegisterIngestedFile(p, tree_));
    }
  }
  return Status::Ok();
}

Status TarIngester::ForgetRegistered() {
  if (non_dirs_.size() < kMemberWindow) return Status::Ok();
  // Only what is registered is forgotten: waiting for everything queued
  // would leave the pipeline's workers idle until the reader caught up.
  // What stays queued is at most kMaxPending (+1) files, so the next pass
  // comes after at least as many new members.
  CVMFS_RETURN_IF_ERROR(pending_.FlushReady());
  const uint64_t registered = pending_.registered();
  for (auto it = non_dirs_.begin(); it != non_dirs_.end();) {
    auto queued = queued_at_.find(it->first);
    const bool in_tree =
        queued == queued_at_.end() || queued->second < registered;
    if (!in_tree || group_of_.count(it->first)) {
      ++it;
      continue;
    }
    contents_.erase(it->first);
    if (queued != queued_at_.end()) queued_at_.erase(queued);
    it = non_dirs_.erase(it);
  }
  return Status::Ok();
}

Result<std::shared_ptr<PendingFile>> TarIngester::ContentOf(
    const std::string& target) {
  auto content = contents_.find(target);
  if (content != contents_.end()) return content->second;
  // Not queued (contents_ holds everything queued): the tree's row is
  // current. Hardlinks resolve there as tar extraction does on disk.
  CVMFS_ASSIGN_OR_RETURN(auto entry, tree_->Lookup(target));
  if (!entry || !entry->IsRegular()) return std::shared_ptr<PendingFile>();
  std::vector<cvmfs::FileChunk> chunks;
  if (entry->chunked) {
    CVMFS_ASSIGN_OR_RETURN(chunks, tree_->Chunks(target));
  } else if (entry->content_hash) {
    chunks.push_back(cvmfs::FileChunk{0, entry->size, *entry->content_hash});
  } else {
    return std::shared_ptr<PendingFile>();
  }
  return PendingFile::Stored(entry->size, std::move(chunks),
                             entry->compression);
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
  CVMFS_RETURN_IF_ERROR(UndoUnmatchedEagerCatalogs(dirtab));
  if (!dirtab) return Status::Ok();
  std::vector<std::string> dirs(touched_dirs_.begin(), touched_dirs_.end());
  return ApplyDirtab(*dirtab, dirs, MarkerEntry(), tree_, pipeline_).status();
}

// A later /.cvmfsdirtab member changed the rules: what the earlier rules
// made, and the final ones do not match (nor a .cvmfscatalog member),
// becomes part of its parent catalog again, without its marker.
Status TarIngester::UndoUnmatchedEagerCatalogs(
    const std::optional<Dirtab>& dirtab) {
  // Deepest first, so that each merges into the catalog that stays.
  std::sort(eager_catalogs_.begin(), eager_catalogs_.end(),
            [](const EagerCatalog& x, const EagerCatalog& y) {
              return x.dir.size() > y.dir.size();
            });
  for (const EagerCatalog& c : eager_catalogs_) {
    if (dirtab && dirtab->IsMatching(c.dir)) continue;
    if (std::find(catalog_markers_.begin(), catalog_markers_.end(), c.dir) !=
        catalog_markers_.end())
      continue;
    if (!tree_->IsNestedCatalogRoot(c.dir)) continue;
    CVMFS_RETURN_IF_ERROR(tree_->RemoveNestedCatalog(c.dir));
    if (c.marker_created)
      CVMFS_RETURN_IF_ERROR(tree_->Remove(c.dir + "/.cvmfscatalog"));
  }
  eager_catalogs_.clear();
  return Status::Ok();
}

Status IngestTar(const TarIngestOptions& options, CatalogTree* tree,
                 IngestPipeline* pipeline) {
  TarIngester ingester(options, tree, pipeline);
  return ingester.Run();
}

}  // namespace publisher
