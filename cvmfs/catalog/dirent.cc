#include "cvmfs/catalog/dirent.h"

#include <sys/stat.h>

#include "cvmfs/catalog/flags.h"

namespace cvmfs {

bool DirectoryEntry::IsDirectory() const { return S_ISDIR(mode); }
bool DirectoryEntry::IsRegular() const { return S_ISREG(mode); }
bool DirectoryEntry::IsSymlink() const { return S_ISLNK(mode); }
bool DirectoryEntry::IsSpecial() const {
  return S_ISFIFO(mode) || S_ISSOCK(mode) || S_ISCHR(mode) || S_ISBLK(mode);
}

bool DirectoryEntry::operator==(const DirectoryEntry& o) const {
  return name == o.name && mode == o.mode && size == o.size &&
         mtime == o.mtime && mtime_ns == o.mtime_ns && uid == o.uid &&
         gid == o.gid && linkcount == o.linkcount &&
         hardlink_group == o.hardlink_group && content_hash == o.content_hash &&
         hash_algorithm == o.hash_algorithm && compression == o.compression &&
         symlink == o.symlink && nested_mountpoint == o.nested_mountpoint &&
         nested_root == o.nested_root && chunked == o.chunked &&
         external == o.external && hidden == o.hidden &&
         direct_io == o.direct_io && bind_mountpoint == o.bind_mountpoint &&
         xattrs == o.xattrs;
}

// Mirrors SqlDirent::CreateDatabaseFlags of CVMFS 2.12.
uint32_t EncodeFlags(const DirectoryEntry& e) {
  uint32_t flags = 0;
  if (e.nested_root) {
    flags |= kFlagNestedRoot;
  } else if (e.nested_mountpoint) {
    flags |= kFlagNestedMountpoint;
  } else if (e.bind_mountpoint) {
    flags |= kFlagBindMountpoint;
  }

  if (e.IsDirectory()) {
    flags |= kFlagDir;
  } else if (e.IsSymlink()) {
    flags |= kFlagFile | kFlagLink;
  } else if (e.IsSpecial()) {
    flags |= kFlagFile | kFlagSpecial;
  } else {
    flags |= kFlagFile;
    flags |= (static_cast<uint32_t>(e.compression) << kFlagPosCompression) &
             kFlagCompressionMask;
    if (e.chunked) flags |= kFlagChunked;
    if (e.external) flags |= kFlagExternal;
  }

  // The algorithm is recorded whenever there is content to verify.
  if (e.content_hash.has_value() || e.chunked) {
    HashAlgorithm algo =
        e.content_hash ? e.content_hash->algorithm : e.hash_algorithm;
    uint32_t stored =
        algo == HashAlgorithm::kMd5 ? 0 : static_cast<uint32_t>(algo) - 1;
    flags |= (stored << kFlagPosHash) & kFlagHashMask;
  }

  if (e.hidden) flags |= kFlagHidden;
  if (e.direct_io) flags |= kFlagDirectIo;
  return flags;
}

void DecodeFlags(uint32_t flags, DirectoryEntry* e) {
  e->nested_mountpoint = (flags & kFlagNestedMountpoint) != 0;
  e->nested_root = (flags & kFlagNestedRoot) != 0;
  e->bind_mountpoint = (flags & kFlagBindMountpoint) != 0;
  e->chunked = (flags & kFlagChunked) != 0;
  e->external = (flags & kFlagExternal) != 0;
  e->hidden = (flags & kFlagHidden) != 0;
  e->direct_io = (flags & kFlagDirectIo) != 0;
  uint32_t algo = ((flags & kFlagHashMask) >> kFlagPosHash) + 1;
  e->hash_algorithm = static_cast<HashAlgorithm>(algo);
  e->compression = static_cast<Compression>((flags & kFlagCompressionMask) >>
                                            kFlagPosCompression);
}

// ---------------------------------------------------------------------------
// Counters

const CounterField kCounterFields[kNumCounterFields] = {
    {"chunked", &CounterSet::chunked},
    {"chunked_size", &CounterSet::chunked_size},
    {"chunks", &CounterSet::chunks},
    {"dir", &CounterSet::dir},
    {"external", &CounterSet::external},
    {"external_file_size", &CounterSet::external_file_size},
    {"file_size", &CounterSet::file_size},
    {"nested", &CounterSet::nested},
    {"regular", &CounterSet::regular},
    {"special", &CounterSet::special},
    {"symlink", &CounterSet::symlink},
    {"xattr", &CounterSet::xattr},
};

// Mirrors DeltaCounters::ApplyDelta of CVMFS 2.12.
void CounterSet::Count(const DirectoryEntry& e, int delta) {
  int64_t size = static_cast<int64_t>(e.size);
  if (e.IsRegular()) {
    regular += delta;
    file_size += delta * size;
    if (e.chunked) {
      chunked += delta;
      chunked_size += delta * size;
    }
    if (e.external) {
      external += delta;
      external_file_size += delta * size;
    }
  } else if (e.IsSymlink()) {
    symlink += delta;
  } else if (e.IsSpecial()) {
    special += delta;
  } else if (e.IsDirectory()) {
    dir += delta;
  }
  if (!e.xattrs.empty()) xattr += delta;
}

CounterSet& CounterSet::operator+=(const CounterSet& o) {
  for (const CounterField& f : kCounterFields) this->*f.member += o.*f.member;
  return *this;
}

CounterSet& CounterSet::operator-=(const CounterSet& o) {
  for (const CounterField& f : kCounterFields) this->*f.member -= o.*f.member;
  return *this;
}

bool CounterSet::operator==(const CounterSet& o) const {
  for (const CounterField& f : kCounterFields)
    if (this->*f.member != o.*f.member) return false;
  return true;
}

int64_t* CatalogCounters::Find(std::string_view row_name) {
  CounterSet* set = nullptr;
  std::string_view name;
  if (row_name.substr(0, 5) == "self_") {
    set = &self;
    name = row_name.substr(5);
  } else if (row_name.substr(0, 8) == "subtree_") {
    set = &subtree;
    name = row_name.substr(8);
  } else {
    return nullptr;
  }
  for (const CounterField& f : kCounterFields)
    if (name == f.name) return &(set->*f.member);
  return nullptr;
}

}  // namespace cvmfs
