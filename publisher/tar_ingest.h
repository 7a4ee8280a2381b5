// Publishing a tar stream (`cvmfs_server ingest`).
//
// Members are read in order with libarchive (tar formats only: ustar, pax,
// GNU, v7, under any compression it detects; member paths with or without a
// leading "./"), placed below
// `base_dir`, and applied to the catalog tree: directories, regular files
// (their content through the ingestion pipeline), symlinks (targets stored
// raw), fifos, sockets and devices, hardlinks (a hardlink group when both
// names share a directory, as CVMFS does; a separate copy otherwise) and
// extended attributes (pax SCHILY.xattr records). A `.cvmfscatalog` member
// makes its directory the root of a nested catalog, and so do the rules of
// the repository's `/.cvmfsdirtab` for the directories the tarball creates
// or touches (dirtab_catalogs.h).
//
// What is refused (the whole ingest fails, nothing is published): input that
// is not a complete tar archive (tar_stream.h: zero bytes, another format, a
// stream cut inside a member or before the end-of-archive blocks), a path
// longer than a client can use (kMaxClientPathLength with the /cvmfs/<fqrn>
// prefix), a symlink target longer than kMaxClientPathLength, a uid or gid
// above 32 bits, and a member below a non-directory (`link -> x` then
// `link/file`). A later member at the path of an earlier one replaces it, as
// tar extraction does; a non-directory replacing a directory removes what was
// below it.
#ifndef PUBLISHER_TAR_INGEST_H_
#define PUBLISHER_TAR_INGEST_H_

#include <string>
#include <vector>

#include "cvmfs/status.h"
#include "publisher/catalog_tree.h"
#include "publisher/ingest_pipeline.h"

namespace publisher {

// PATH_MAX less the terminating NUL: the longest path a client can use, as
// `/cvmfs/<fqrn>/<path>`, and the longest symlink target it can return.
constexpr size_t kMaxClientPathLength = 4095;

struct TarIngestOptions {
  std::string tarball;                    // path, or "-" for standard input
  std::string base_dir;                   // where the members go ("" = root)
  std::vector<std::string> delete_paths;  // removed before ingesting
  // The repository's name: paths are limited as a client sees them, below
  // /cvmfs/<fqrn> (empty: only "/cvmfs/" is counted).
  std::string fqrn;
  bool include_xattrs = true;
  bool ignore_special_files = false;
  bool apply_dirtab = true;  // /.cvmfsdirtab rules (dirtab_catalogs.h)
  cvmfs::HashAlgorithm hash_algorithm = cvmfs::HashAlgorithm::kSha1;
  cvmfs::Compression compression = cvmfs::Compression::kZlib;
  // CVMFS_EXTERNAL_DATA: regular files are flagged external (as a
  // transaction's, upper_applier.h).
  bool external_data = false;
};

// Normalizes a repository path: "a/b/", "/a//b", "./a/b" all become "/a/b";
// "", "/" and "." become "" (the root). Rejects ".." components.
cvmfs::Result<std::string> NormalizeRepoPath(const std::string& path);

cvmfs::Status IngestTar(const TarIngestOptions& options, CatalogTree* tree,
                        IngestPipeline* pipeline);

}  // namespace publisher

#endif  // PUBLISHER_TAR_INGEST_H_
