#include "client/content_request.h"

namespace cvmfs::client {

ObjectRequest WholeContentRequest(const std::string& path,
                                  const DirectoryEntry& entry) {
  ObjectRequest request;
  request.digest = entry.content_hash.value_or(Digest());
  request.compressed = entry.compression == Compression::kZlib;
  request.description = path;
  request.expected_size = entry.size;
  if (entry.external) request.external = ExternalLocation{path, 0, 0};
  return request;
}

ObjectRequest ChunkContentRequest(const std::string& path,
                                  const DirectoryEntry& entry,
                                  const FileChunk& chunk) {
  ObjectRequest request;
  request.digest = chunk.hash;
  request.suffix = ObjectSuffix::kPartial;
  request.compressed = entry.compression == Compression::kZlib;
  request.description = path + "@" + std::to_string(chunk.offset);
  request.expected_size = chunk.size;
  if (entry.external)
    request.external = ExternalLocation{path, chunk.offset, chunk.size};
  return request;
}

}  // namespace cvmfs::client
