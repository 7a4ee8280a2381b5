// ApplyUpperLayer: turns the changes of a transaction (upper_scanner.h) into
// changes of the catalog tree, with file contents going through the same
// ingestion pipeline as `ingest`.
//
//   whiteout                      Remove(path) (a subtree for a directory)
//   opaque directory              Remove(path), then add it anew
//   directory                     Put (new, or new attributes: contents stay)
//   file / symlink / special      Put; replaces whatever was there (a type
//                                 change, e.g. directory -> file, removes the
//                                 old subtree first)
//
// Then, as CVMFS does: a `.cvmfscatalog` file makes its directory a nested
// catalog root (shallow first; ignored in the root); a deleted marker merges
// the catalog back into its parent; and the rules of the repository's
// `.cvmfsdirtab` are applied to the directories the transaction created or
// changed (dirtab_catalogs.h). A regular file with a `.cvmfsgraft-<name>`
// marker beside it in the upper layer is published from the marker's size,
// hash and chunks without reading it (graft_file.h); markers themselves are
// never published. Hard links are published as separate files
// (CVMFS does the same for the overlay).
//
// A file is read through a ByteSource that compares inode, size and mtime
// at the end of reading with the scanned values: a file that changes while
// it is published is an error naming it, and nothing is published.
//
// Thread safety: runs on the publisher's thread, which scans and registers
// entries in the catalogs; the pipeline's workers read, hash, look up and
// compress file contents (IngestPipeline::SubmitOwned).
#ifndef PUBLISHER_UPPER_APPLIER_H_
#define PUBLISHER_UPPER_APPLIER_H_

#include <cstdint>
#include <string>

#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"
#include "publisher/catalog_tree.h"
#include "publisher/ingest_pipeline.h"
#include "publisher/upper_scanner.h"

namespace publisher {

struct UpperApplyOptions {
  cvmfs::HashAlgorithm hash_algorithm = cvmfs::HashAlgorithm::kSha1;
  cvmfs::Compression compression = cvmfs::Compression::kZlib;
  bool ignore_special_files = false;
  bool apply_dirtab = true;
  // CVMFS_EXTERNAL_DATA (or publish -X/-N): new regular files are flagged
  // external (kFlagExternal): clients fetch them by path from their
  // CVMFS_EXTERNAL_URL. Their content is still hashed, compressed with
  // `compression` and stored, as CVMFS does (use compression none, so that
  // the hash is that of the plain file the external server holds).
  bool external_data = false;
  UpperScanOptions scan;
};

struct UpperChanges {
  uint64_t files = 0, directories = 0, symlinks = 0, special = 0, removed = 0;
  uint64_t opaque_directories = 0;
  uint64_t catalogs_created = 0, catalogs_removed = 0;
};

cvmfs::Status ApplyUpperLayer(const std::string& upper_dir,
                              const UpperApplyOptions& options,
                              CatalogTree* tree, IngestPipeline* pipeline,
                              UpperChanges* changes);

}  // namespace publisher

#endif  // PUBLISHER_UPPER_APPLIER_H_
