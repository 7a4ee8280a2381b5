// Every name under a repository's storage root (doc/format.md, "Layout").
//
// This module owns the object path scheme `data/XX/<rest><algo-id><suffix>`
// and the fixed file names at the repository root, and parses object paths
// back into (digest, suffix).
#ifndef CVMFS_OBJECT_NAME_H_
#define CVMFS_OBJECT_NAME_H_

#include <string>
#include <string_view>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cvmfs {

// Object type suffix characters.
enum class ObjectSuffix : char {
  kNone = 0,  // whole file ("bulk")
  kCatalog = 'C',
  kPartial = 'P',  // file chunk
  kHistory = 'H',
  kCertificate = 'X',
  kMetainfo = 'M',
  kMicroCatalog = 'L',
  kBundle = 'B',  // ours: doc/format-bundles.md
};

inline constexpr std::string_view kManifestName = ".cvmfspublished";
inline constexpr std::string_view kWhitelistName = ".cvmfswhitelist";
inline constexpr std::string_view kReflogName = ".cvmfsreflog";
inline constexpr std::string_view kMasterReplicaName = ".cvmfs_master_replica";
inline constexpr std::string_view kDataDir = "data";
inline constexpr std::string_view kTxnDir = "data/txn";

// "data/ab/cdef...<algo-id><suffix>", relative to the repository root.
std::string ObjectPath(const Digest& digest, ObjectSuffix suffix);

struct ObjectName {
  Digest digest;
  ObjectSuffix suffix = ObjectSuffix::kNone;
};
// Parses a path relative to the repository root ("data/ab/cd...C").
Result<ObjectName> ParseObjectPath(std::string_view path);

}  // namespace cvmfs

#endif  // CVMFS_OBJECT_NAME_H_
