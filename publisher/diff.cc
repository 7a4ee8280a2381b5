#include "publisher/diff.h"

#include <memory>
#include <utility>
#include <vector>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/catalog_walker.h"

namespace publisher {

using cvmfs::Catalog;
using cvmfs::DirectoryEntry;
using cvmfs::Result;
using cvmfs::Status;

EntryType TypeOf(const DirectoryEntry& entry) {
  if (entry.IsRegular()) return EntryType::kFile;
  if (entry.IsSymlink()) return EntryType::kSymlink;
  if (entry.IsDirectory()) return EntryType::kDirectory;
  return EntryType::kUnknown;
}

namespace {

struct DifferenceName {
  char letter;
  const char* name;
};
// In the order of PathChange::differences.
constexpr DifferenceName kDifferenceNames[] = {
    {'I', "link-count"},      {'S', "size"},           {'M', "mode"},
    {'O', "owner"},           {'T', "timestamp"},      {'L', "symlink-target"},
    {'C', "content"},         {'G', "hardlink-group"}, {'N', "nested-catalog"},
    {'P', "chunked-file"},    {'X', "xattrs"},         {'E', "external-file"},
    {'B', "bind-mountpoint"}, {'H', "hidden"},
};

// A directory's contents on one side of the comparison: the catalog that
// holds its rows, owned here when it had to be loaded for it.
struct Side {
  Catalog* catalog = nullptr;  // nullptr: not a directory on this side
  std::unique_ptr<Catalog> owned;
};

class TreeDiff {
 public:
  TreeDiff(cvmfs::ObjectStore* store, const std::string& temp_dir,
           const DiffOptions& options,
           const std::function<void(const PathChange&)>& emit)
      : loader_(store, temp_dir), options_(options), emit_(emit) {}

  Result<DiffSummary> Run(const cvmfs::Digest& from, const cvmfs::Digest& to) {
    CVMFS_ASSIGN_OR_RETURN(auto old_root, Load(from));
    CVMFS_ASSIGN_OR_RETURN(auto new_root, Load(to));
    CVMFS_RETURN_IF_ERROR(DiffDir("", old_root.get(), new_root.get()));
    CVMFS_ASSIGN_OR_RETURN(cvmfs::CatalogCounters old_counters,
                           old_root->ReadCounters());
    CVMFS_ASSIGN_OR_RETURN(cvmfs::CatalogCounters new_counters,
                           new_root->ReadCounters());
    const cvmfs::CounterSet a = old_counters.Total(), b = new_counters.Total();
    summary_.delta.files = b.regular - a.regular;
    summary_.delta.symlinks = b.symlink - a.symlink;
    summary_.delta.catalogs = b.nested - a.nested;
    // A nested catalog's root row repeats its mountpoint directory.
    summary_.delta.directories = b.dir - a.dir - summary_.delta.catalogs;
    return summary_;
  }

 private:
  Result<std::unique_ptr<Catalog>> Load(const cvmfs::Digest& hash) {
    ++summary_.catalogs_loaded;
    return loader_.Load(hash);
  }

  // Visible children of `dir` in `catalog` (none without a catalog).
  static Result<std::vector<DirectoryEntry>> Children(Catalog* catalog,
                                                      const std::string& dir) {
    std::vector<DirectoryEntry> visible;
    if (!catalog) return visible;
    CVMFS_ASSIGN_OR_RETURN(auto all, catalog->List(dir));
    for (DirectoryEntry& e : all)
      if (!e.hidden) visible.push_back(std::move(e));
    return visible;
  }

  // Where the contents of directory `path` (entry `e`, a row of `parent`)
  // live: the same catalog, or the nested catalog attached there.
  Result<Side> Enter(Catalog* parent, const std::string& path,
                     const DirectoryEntry& e) {
    Side side;
    if (!e.IsDirectory()) return side;
    if (!e.nested_mountpoint) {
      side.catalog = parent;
      return side;
    }
    CVMFS_ASSIGN_OR_RETURN(auto ref, parent->FindNested(path));
    if (!ref)
      return Status::Corruption("nested catalog mountpoint " + path +
                                " has no reference");
    CVMFS_ASSIGN_OR_RETURN(side.owned, Load(ref->hash));
    side.catalog = side.owned.get();
    return side;
  }

  void Emit(ChangeKind kind, const std::string& path, EntryType from,
            EntryType to, std::string differences = "") {
    ++summary_.changes;
    emit_(PathChange{kind, path, from, to, std::move(differences)});
  }

  Status DiffDir(const std::string& dir, Catalog* old_cat, Catalog* new_cat) {
    CVMFS_ASSIGN_OR_RETURN(auto old_children, Children(old_cat, dir));
    CVMFS_ASSIGN_OR_RETURN(auto new_children, Children(new_cat, dir));
    size_t i = 0, j = 0;
    while (i < old_children.size() || j < new_children.size()) {
      const bool take_new = i == old_children.size() ||
                            (j < new_children.size() &&
                             new_children[j].name < old_children[i].name);
      const bool take_old =
          !take_new && (j == new_children.size() ||
                        old_children[i].name < new_children[j].name);
      if (take_new) {
        CVMFS_RETURN_IF_ERROR(Added(dir, new_cat, new_children[j++]));
      } else if (take_old) {
        CVMFS_RETURN_IF_ERROR(Removed(dir, old_cat, old_children[i++]));
      } else {
        CVMFS_RETURN_IF_ERROR(Compared(dir, old_cat, old_children[i++], new_cat,
                                       new_children[j++]));
      }
    }
    return Status::Ok();
  }

  Status Added(const std::string& dir, Catalog* cat, const DirectoryEntry& e) {
    const std::string path = dir + "/" + e.name;
    Emit(ChangeKind::kAdded, path, EntryType::kUnknown, TypeOf(e));
    CVMFS_ASSIGN_OR_RETURN(Side side, Enter(cat, path, e));
    return side.catalog ? DiffDir(path, nullptr, side.catalog) : Status::Ok();
  }

  Status Removed(const std::string& dir, Catalog* cat,
                 const DirectoryEntry& e) {
    const std::string path = dir + "/" + e.name;
    CVMFS_ASSIGN_OR_RETURN(Side side, Enter(cat, path, e));
    if (side.catalog)
      CVMFS_RETURN_IF_ERROR(DiffDir(path, side.catalog, nullptr));
    Emit(ChangeKind::kRemoved, path, TypeOf(e), EntryType::kUnknown);
    return Status::Ok();
  }

  Status Compared(const std::string& dir, Catalog* old_cat,
                  const DirectoryEntry& a, Catalog* new_cat,
                  const DirectoryEntry& b) {
    const std::string path = dir + "/" + b.name;
    CVMFS_ASSIGN_OR_RETURN(std::string differences,
                           Differences(path, old_cat, a, new_cat, b));
    if (differences.empty() && a.nested_mountpoint && b.nested_mountpoint) {
      CVMFS_ASSIGN_OR_RETURN(auto ref_a, old_cat->FindNested(path));
      CVMFS_ASSIGN_OR_RETURN(auto ref_b, new_cat->FindNested(path));
      if (ref_a && ref_b && ref_a->hash == ref_b->hash) {
        ++summary_.catalogs_skipped;
        return Status::Ok();
      }
    }
    if (!differences.empty())
      Emit(ChangeKind::kModified, path, TypeOf(a), TypeOf(b),
           std::move(differences));
    if (!a.IsDirectory() && !b.IsDirectory()) return Status::Ok();
    CVMFS_ASSIGN_OR_RETURN(Side old_side, Enter(old_cat, path, a));
    CVMFS_ASSIGN_OR_RETURN(Side new_side, Enter(new_cat, path, b));
    return DiffDir(path, old_side.catalog, new_side.catalog);
  }

  // The letters of PathChange::differences for two entries at `path`.
  Result<std::string> Differences(const std::string& path, Catalog* old_cat,
                                  const DirectoryEntry& a, Catalog* new_cat,
                                  const DirectoryEntry& b) {
    std::string d;
    if (a.linkcount != b.linkcount) d += 'I';
    if (a.size != b.size) d += 'S';
    if (a.mode != b.mode) d += 'M';
    if (a.uid != b.uid || a.gid != b.gid) d += 'O';
    if (!options_.ignore_timestamps &&
        (a.mtime != b.mtime || a.mtime_ns != b.mtime_ns))
      d += 'T';
    if (a.symlink != b.symlink) d += 'L';
    CVMFS_ASSIGN_OR_RETURN(bool same_content,
                           SameContent(path, old_cat, a, new_cat, b));
    if (!same_content) d += 'C';
    // Group numbers are local to a catalog; only membership is compared.
    if ((a.hardlink_group != 0) != (b.hardlink_group != 0)) d += 'G';
    if (a.nested_mountpoint != b.nested_mountpoint) d += 'N';
    if (a.chunked != b.chunked) d += 'P';
    if (a.xattrs != b.xattrs) d += 'X';
    if (a.external != b.external) d += 'E';
    if (a.bind_mountpoint != b.bind_mountpoint) d += 'B';
    if (a.hidden != b.hidden) d += 'H';
    return d;
  }

  // Regular files: same bulk hash, or the same chunk list when chunked.
  static Result<bool> SameContent(const std::string& path, Catalog* old_cat,
                                  const DirectoryEntry& a, Catalog* new_cat,
                                  const DirectoryEntry& b) {
    if (!a.IsRegular() || !b.IsRegular()) return true;
    if (a.content_hash != b.content_hash) return false;
    if (!a.chunked || !b.chunked) return true;
    CVMFS_ASSIGN_OR_RETURN(auto chunks_a, old_cat->Chunks(path));
    CVMFS_ASSIGN_OR_RETURN(auto chunks_b, new_cat->Chunks(path));
    return chunks_a == chunks_b;
  }

  cvmfs::CatalogWalker loader_;
  const DiffOptions& options_;
  const std::function<void(const PathChange&)>& emit_;
  DiffSummary summary_;
};

const char* TypeName(EntryType type, bool machine_readable) {
  switch (type) {
    case EntryType::kFile:
      return machine_readable ? "F" : "file";
    case EntryType::kSymlink:
      return machine_readable ? "S" : "symlink";
    case EntryType::kDirectory:
      return machine_readable ? "D" : "directory";
    case EntryType::kUnknown:
      break;
  }
  return machine_readable ? "U" : "unknown";
}

std::string Escape(const std::string& path) {
  std::string out;
  for (char c : path) {
    if (c == '\\')
      out += "\\\\";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else
      out += c;
  }
  return out;
}

std::string HumanDifferences(const std::string& letters) {
  std::string out;
  for (const DifferenceName& n : kDifferenceNames) {
    if (letters.find(n.letter) == std::string::npos) continue;
    out += std::string(out.empty() ? "" : ", ") + n.name;
  }
  return "[" + out + "]";
}

}  // namespace

Result<DiffSummary> DiffRevisions(
    cvmfs::ObjectStore* store, const cvmfs::Digest& from,
    const cvmfs::Digest& to, const std::string& temp_dir,
    const DiffOptions& options,
    const std::function<void(const PathChange&)>& emit) {
  TreeDiff diff(store, temp_dir, options, emit);
  return diff.Run(from, to);
}

std::string FormatChange(const PathChange& c, bool machine_readable) {
  const bool mod = c.kind == ChangeKind::kModified;
  std::string type =
      TypeName(c.kind == ChangeKind::kAdded ? c.to : c.from, machine_readable);
  if (mod && c.from != c.to)
    type += std::string(machine_readable ? "" : "->") +
            TypeName(c.to, machine_readable);
  if (machine_readable) {
    std::string op(1, static_cast<char>(c.kind));
    if (mod) op += "[" + c.differences + "]";
    return op + "\t" + type + "\t" + Escape(c.path);
  }
  const char* op = c.kind == ChangeKind::kAdded ? "add"
                   : mod                        ? "modify"
                                                : "remove";
  std::string line = c.path + " " + op + " " + type;
  if (mod) line += " " + HumanDifferences(c.differences);
  return line;
}

std::string FormatDelta(const CounterDelta& d, bool machine_readable) {
  const std::pair<const char*, int64_t> rows[] = {
      {machine_readable ? "F" : "regular files", d.files},
      {machine_readable ? "S" : "symlinks", d.symlinks},
      {machine_readable ? "D" : "directories", d.directories},
      {machine_readable ? "N" : "catalogs", d.catalogs},
  };
  std::string out;
  for (const auto& [name, value] : rows) {
    out += machine_readable
               ? std::string("S\t") + name + "\t" + std::to_string(value)
               : std::string("d(# ") + name + "): " + std::to_string(value);
    out += "\n";
  }
  return out;
}

}  // namespace publisher
