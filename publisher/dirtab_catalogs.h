// Nested catalogs from the repository's `/.cvmfsdirtab`, during a publish.
//
// CVMFS applies the dirtab when it publishes a transaction, and its
// `ingest` ignores the dirtab. We apply it in `ingest` too, to the
// directories the tarball creates or touches (directories it holds,
// directories created for it, parents of its members, the base directory);
// directories elsewhere in the repository are left as they are, so adding a
// rule does not restructure a published tree behind the administrator's back.
//
// The dirtab read is the one of the revision being built: the tarball's if it
// wrote `/.cvmfsdirtab`, else the current revision's. It is read through the
// object store with its hash verified; a dirtab that is not a regular file,
// is chunked or is larger than kMaxDirtabSize is an error.
//
// Every matching directory that is not yet a nested catalog root gets an
// empty regular `.cvmfscatalog` file (as CVMFS creates the marker in the
// scratch area, so it is listed) and becomes a nested catalog, shallow
// directories first, so a deeper catalog is created inside its parent's.
#ifndef PUBLISHER_DIRTAB_CATALOGS_H_
#define PUBLISHER_DIRTAB_CATALOGS_H_

#include <optional>
#include <string>
#include <vector>

#include "cvmfs/catalog/dirent.h"
#include "cvmfs/status.h"
#include "publisher/catalog_tree.h"
#include "publisher/dirtab.h"
#include "publisher/ingest_pipeline.h"

namespace publisher {

inline constexpr char kDirtabPath[] = "/.cvmfsdirtab";
inline constexpr uint64_t kMaxDirtabSize = 1u << 20;

// The dirtab at kDirtabPath in `tree`, or nullopt if there is none.
cvmfs::Result<std::optional<Dirtab>> LoadDirtab(CatalogTree* tree);

// The `.cvmfscatalog` entry ApplyDirtab creates: a regular file, 0644,
// stamped now, in the repository's hash algorithm and compression.
cvmfs::DirectoryEntry DirtabMarker(cvmfs::HashAlgorithm hash_algorithm,
                                   cvmfs::Compression compression);

// Makes each directory of `dirs` that `dirtab` matches a nested catalog
// root, with a `.cvmfscatalog` entry shaped like `marker` (mode, mtime, hash
// algorithm, compression; owner of its directory; its content, the empty
// file, goes through `pipeline`). Returns the new mountpoints, shallow first.
// `empty_file`, if given, caches the empty file's hash between calls (it is
// stored once, waiting for the pipeline); `markers_created`, if given,
// receives the directories whose marker this call created.
cvmfs::Result<std::vector<std::string>> ApplyDirtab(
    const Dirtab& dirtab, const std::vector<std::string>& dirs,
    const cvmfs::DirectoryEntry& marker, CatalogTree* tree,
    IngestPipeline* pipeline,
    std::optional<cvmfs::Digest>* empty_file = nullptr,
    std::vector<std::string>* markers_created = nullptr);

}  // namespace publisher

#endif  // PUBLISHER_DIRTAB_CATALOGS_H_
