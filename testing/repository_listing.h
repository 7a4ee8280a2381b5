// Test helper: the listing of a published revision in the format of the
// fixtures' expected.tsv (path, type, mode, size, mtime, sha256 or symlink
// target, link count, hardlink group, xattrs), read through the library:
// catalogs walked, file content reassembled from (chunk) objects, each
// object's hash verified.
#ifndef TESTING_REPOSITORY_LISTING_H_
#define TESTING_REPOSITORY_LISTING_H_

#include <map>
#include <string>

#include "cvmfs/hash.h"
#include "cvmfs/object_store.h"
#include "cvmfs/status.h"

namespace cvmfs::testing {

struct ListingLine {
  char type = '?';
  std::string mode_octal, size, mtime, content, linkcount, group, xattrs;
  std::string ToString() const;
};

// path (without leading slash) -> line. Symlinks are expanded with
// CVMFS_ARCH=x86_64 and nothing else set.
Result<std::map<std::string, ListingLine>> ListRepository(
    ObjectStore* store, const Digest& root, const std::string& temp_dir);
// Parses an expected.tsv file.
Result<std::map<std::string, ListingLine>> ParseExpectedListing(
    const std::string& file);

// SHA-256 hex of a byte string.
std::string Sha256Hex(const std::string& data);

}  // namespace cvmfs::testing

#endif  // TESTING_REPOSITORY_LISTING_H_
