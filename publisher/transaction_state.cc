#include "publisher/transaction_state.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>

#include "cvmfs/file_util.h"
#include "cvmfs/text.h"
#include "publisher/server_config.h"

namespace publisher {

using cvmfs::Result;
using cvmfs::Status;

namespace {

Result<std::optional<KeyValueFile>> LoadIfPresent(const std::string& file) {
  if (!cvmfs::PathExists(file)) return std::optional<KeyValueFile>();
  CVMFS_ASSIGN_OR_RETURN(KeyValueFile kv, KeyValueFile::Load(file));
  return std::optional<KeyValueFile>(std::move(kv));
}

Status Damaged(const std::string& file, const std::string& why) {
  return Status::Corruption(
      "state file " + file + " is damaged (" + why +
      "); remove it only after checking the repository with "
      "cvmfs_server check");
}

Result<cvmfs::Digest> ParseDigest(const KeyValueFile& kv,
                                  const std::string& key,
                                  const std::string& file) {
  auto d = cvmfs::Digest::Parse(kv.Get(key));
  if (!d.ok()) return Damaged(file, key + ": " + d.status().message());
  return *d;
}

Result<uint64_t> ParseNumber(const KeyValueFile& kv, const std::string& key,
                             const std::string& file) {
  const std::string v = kv.Get(key);
  std::optional<uint64_t> n = cvmfs::ParseUint64(v);
  if (!n) return Damaged(file, key + "='" + v + "' is not a number");
  return *n;
}

// The parent directory is synced too, so the rename itself is durable.
Status SyncDirectoryOf(const std::string& file) {
  std::string dir = file.substr(0, file.rfind('/'));
  cvmfs::UniqueFd fd(::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!fd.valid()) return Status::FromErrno(errno, "open " + dir);
  if (::fsync(fd.get()) != 0) return Status::FromErrno(errno, "fsync " + dir);
  return Status::Ok();
}

Status StoreDurably(const std::string& file, const KeyValueFile& kv) {
  CVMFS_RETURN_IF_ERROR(
      cvmfs::WriteFileAtomic(file, kv.Serialize(), 0644, /*sync=*/true));
  return SyncDirectoryOf(file);
}

}  // namespace

Result<std::optional<TransactionState>> TransactionState::Load(
    const std::string& file) {
  CVMFS_ASSIGN_OR_RETURN(auto kv, LoadIfPresent(file));
  if (!kv) return std::optional<TransactionState>();
  TransactionState s;
  CVMFS_ASSIGN_OR_RETURN(s.base_root, ParseDigest(*kv, "BASE_ROOT_HASH", file));
  CVMFS_ASSIGN_OR_RETURN(s.base_revision,
                         ParseNumber(*kv, "BASE_REVISION", file));
  CVMFS_ASSIGN_OR_RETURN(uint64_t opened, ParseNumber(*kv, "OPENED_AT", file));
  s.opened_at = static_cast<int64_t>(opened);
  s.lease_path = kv->Get("LEASE_PATH");
  return std::optional<TransactionState>(s);
}

Status TransactionState::Store(const std::string& file) const {
  KeyValueFile kv;
  kv.Set("BASE_ROOT_HASH", base_root.ToString());
  kv.Set("BASE_REVISION", std::to_string(base_revision));
  kv.Set("OPENED_AT", std::to_string(opened_at));
  if (!lease_path.empty()) kv.Set("LEASE_PATH", lease_path);
  return StoreDurably(file, kv);
}

Result<std::optional<PublishingState>> PublishingState::Load(
    const std::string& file) {
  CVMFS_ASSIGN_OR_RETURN(auto kv, LoadIfPresent(file));
  if (!kv) return std::optional<PublishingState>();
  PublishingState s;
  CVMFS_ASSIGN_OR_RETURN(s.new_root, ParseDigest(*kv, "NEW_ROOT_HASH", file));
  CVMFS_ASSIGN_OR_RETURN(s.new_revision,
                         ParseNumber(*kv, "NEW_REVISION", file));
  return std::optional<PublishingState>(s);
}

Status PublishingState::Store(const std::string& file) const {
  KeyValueFile kv;
  kv.Set("NEW_ROOT_HASH", new_root.ToString());
  kv.Set("NEW_REVISION", std::to_string(new_revision));
  return StoreDurably(file, kv);
}

Status RemoveStateFile(const std::string& file) {
  if (::unlink(file.c_str()) != 0) {
    if (errno == ENOENT) return Status::Ok();
    return Status::FromErrno(errno, "remove " + file);
  }
  return SyncDirectoryOf(file);
}

}  // namespace publisher
