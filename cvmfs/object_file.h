// Objects streamed between local files and an ObjectStore: catalogs of any
// size are read, verified, inflated, compressed and stored in bounded
// memory (a few blocks of 64-256 KiB), never whole in a string.
//
// Both functions produce and accept exactly what ReadVerifiedObject and
// StoreObject (zlib itself, level 6; object_store.h) do for the same bytes:
// the same object names, the same files.
//
// Thread safety: as the store's.
#ifndef CVMFS_OBJECT_FILE_H_
#define CVMFS_OBJECT_FILE_H_

#include <string>

#include "cvmfs/hash.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"

namespace cvmfs {

// Reads object `digest` with `suffix` into the file `file` (created with
// mode 0600, or replaced), inflated when `compressed`, checking the stored
// bytes against the digest (Corruption if they differ, and `file` is
// removed) as they stream by.
Status ReadVerifiedObjectToFile(ObjectStore* store, const Digest& digest,
                                ObjectSuffix suffix, const std::string& file,
                                bool compressed = true);

// Compresses the file `file` into `scratch` (created or replaced, then
// consumed or removed) while hashing the compressed stream, and stores it at
// ObjectPath(digest, suffix) unless that object exists.
Result<StoredObject> StoreFileObject(ObjectStore* store,
                                     const std::string& file,
                                     ObjectSuffix suffix, HashAlgorithm hash,
                                     const std::string& scratch);

}  // namespace cvmfs

#endif  // CVMFS_OBJECT_FILE_H_
