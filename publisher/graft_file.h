// Graft files: CVMFS's `.cvmfsgraft-<name>` markers, which publish the
// regular file <name> of the same directory with content the publisher
// never reads (data already on an external server, or already stored).
// The format (doc/publishing.md, "External data"; what `cvmfs_swissknife
// graft` writes), one `key=value` a line, blanks around both trimmed,
// empty lines and `#` comments ignored:
//
//   size=<bytes>                      required
//   checksum=<hex>[-<algorithm>]      required: the content hash
//   compression=<zlib|none>           optional (default: the repository's)
//   chunk_offsets=0,<o1>,<o2>,...     optional, with chunk_checksums: the
//   chunk_checksums=<h0>,<h1>,...     chunks' start offsets and hashes
//
// As CVMFS checks them: offsets start at 0, increase strictly and stay
// below size, and there are as many checksums as offsets. Anything else
// is an error naming the file (CVMFS aborts the publish then too). The
// marker itself is never published; a marker whose file is absent is
// ignored.
//
// Thread safety: pure functions.
#ifndef PUBLISHER_GRAFT_FILE_H_
#define PUBLISHER_GRAFT_FILE_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/catalog/dirent.h"
#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace publisher {

inline constexpr char kGraftPrefix[] = ".cvmfsgraft-";

struct Graft {
  uint64_t size = 0;
  cvmfs::Digest checksum;
  std::optional<cvmfs::Compression> compression;
  std::vector<cvmfs::FileChunk> chunks;  // empty: one whole object
};

// Parses the text of a graft file; `name` (its path) is named in errors.
cvmfs::Result<Graft> ParseGraft(std::string_view text, const std::string& name);

// Whether `name` (a file name, not a path) is a graft marker.
bool IsGraftMarker(std::string_view name);

}  // namespace publisher

#endif  // PUBLISHER_GRAFT_FILE_H_
