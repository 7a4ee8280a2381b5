#include "cvmfs/object_file.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"

namespace cvmfs {

namespace {
constexpr size_t kBlock = 256 << 10;

// Creates `file` for writing, replacing an existing one.
Result<UniqueFd> CreateFile(const std::string& file, int mode) {
  UniqueFd fd(
      ::open(file.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode));
  if (!fd.valid()) return Status::FromErrno(errno, "create " + file);
  return fd;
}
}  // namespace

Status ReadVerifiedObjectToFile(ObjectStore* store, const Digest& digest,
                                ObjectSuffix suffix, const std::string& file,
                                bool compressed) {
  const std::string name = ObjectPath(digest, suffix);
  CVMFS_ASSIGN_OR_RETURN(UniqueFd out, CreateFile(file, 0600));
  Hasher hasher(digest.algorithm);
  Inflater inflater;
  auto write = [&](const char* data, size_t size) {
    return WriteAll(out.get(), data, size, file);
  };
  Status st = store->ReadTo(name, [&](const char* data, size_t size) {
    hasher.Update(data, size);
    if (!compressed) return write(data, size);
    return inflater.Feed(data, size, write).Annotate(name);
  });
  if (st.ok() && hasher.Finish() != digest)
    st = Status::Corruption("object " + name + " does not match its hash");
  if (st.ok() && compressed) st = inflater.Finish().Annotate(name);
  out.Reset();
  if (!st.ok()) ::unlink(file.c_str());
  return st;
}

Result<StoredObject> StoreFileObject(ObjectStore* store,
                                     const std::string& file,
                                     ObjectSuffix suffix, HashAlgorithm hash,
                                     const std::string& scratch) {
  UniqueFd in(::open(file.c_str(), O_RDONLY | O_CLOEXEC));
  if (!in.valid()) return Status::FromErrno(errno, "open " + file);
  CVMFS_ASSIGN_OR_RETURN(UniqueFd out, CreateFile(scratch, 0644));
  Hasher hasher(hash);
  Deflater deflater(6);
  StoredObject object;
  auto sink = [&](const char* data, size_t size) {
    hasher.Update(data, size);
    object.stored_size += size;
    return WriteAll(out.get(), data, size, scratch);
  };
  Status st =
      ForEachBlock(in.get(), kBlock, file, [&](const char* data, size_t size) {
        return deflater.Feed(data, size, sink);
      });
  if (st.ok()) st = deflater.Finish(sink);
  out.Reset();
  if (st.ok()) {
    object.digest = hasher.Finish();
    const std::string name = ObjectPath(object.digest, suffix);
    object.existed = store->Exists(name);
    if (!object.existed)
      st = store->PutFile(name, scratch).Annotate("storing " + name);
  }
  ::unlink(scratch.c_str());  // gone already if it was moved into the store
  if (!st.ok()) return st;
  return object;
}

}  // namespace cvmfs
