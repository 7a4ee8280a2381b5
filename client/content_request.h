// The object requests for a regular file's content, built in one place for
// every reader (open, chunk reads, prefetch, cvmfs_talk): the whole object
// or one chunk, from the repository's servers by hash, or, for a file
// flagged external in its catalog (kFlagExternal), by path from the
// CVMFS_EXTERNAL_URL servers, a chunk as a byte range of the external file
// (doc/client.md, "External data"). Either way the bytes are verified
// against the catalog's hash and cached under it.
#ifndef CLIENT_CONTENT_REQUEST_H_
#define CLIENT_CONTENT_REQUEST_H_

#include <string>

#include "client/object_fetcher.h"
#include "cvmfs/catalog/dirent.h"

namespace cvmfs::client {

// The whole content of the unchunked regular file `entry` at repository
// path `path`; the caller checks that it has a content hash.
ObjectRequest WholeContentRequest(const std::string& path,
                                  const DirectoryEntry& entry);

// Chunk `chunk` of the chunked regular file `entry` at `path`.
ObjectRequest ChunkContentRequest(const std::string& path,
                                  const DirectoryEntry& entry,
                                  const FileChunk& chunk);

}  // namespace cvmfs::client

#endif  // CLIENT_CONTENT_REQUEST_H_
