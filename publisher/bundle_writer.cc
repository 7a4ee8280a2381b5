#include "publisher/bundle_writer.h"

#include <utility>

#include "cvmfs/object_name.h"

namespace publisher {

using cvmfs::BundleRef;
using cvmfs::DirectoryEntry;
using cvmfs::Result;
using cvmfs::Status;

Result<std::vector<cvmfs::BundleCandidate>> BundleCandidates(
    cvmfs::ObjectStore* store, const std::vector<DirectoryEntry>& listing) {
  std::vector<cvmfs::BundleCandidate> out;
  for (const DirectoryEntry& e : listing) {
    if (!e.IsRegular() || e.chunked || e.external || !e.content_hash) continue;
    const std::string name =
        cvmfs::ObjectPath(*e.content_hash, cvmfs::ObjectSuffix::kNone);
    auto size = store->Size(name);
    // A missing object (a broken repository; `check` names it) is no member.
    if (!size.ok() && size.status().code() == Status::Code::kNotFound) continue;
    if (!size.ok()) return size.status().Annotate("object of " + e.name);
    out.push_back(cvmfs::BundleCandidate{e.name, *e.content_hash, *size});
  }
  return out;
}

Result<BundleRef> BundleWriter::Write(const std::string& dir,
                                      const cvmfs::BundlePlan& plan) {
  std::string bytes = cvmfs::SerializeBundleHeader(plan.members);
  bytes.reserve(bytes.size() + plan.member_bytes());
  for (const cvmfs::BundleMember& m : plan.members) {
    const std::string name =
        cvmfs::ObjectPath(m.digest, cvmfs::ObjectSuffix::kNone);
    CVMFS_ASSIGN_OR_RETURN(std::string member, store_->Get(name));
    if (member.size() != m.size)
      return Status::Corruption(name + " changed while its bundle was built (" +
                                std::to_string(member.size()) + " bytes, " +
                                std::to_string(m.size) + " expected)");
    bytes += member;
  }
  cvmfs::StoreObjectOptions options;
  options.hash = algorithm_;
  options.compression = cvmfs::Compression::kNone;  // members are compressed
  CVMFS_ASSIGN_OR_RETURN(
      cvmfs::StoredObject stored,
      cvmfs::StoreObject(store_, bytes, cvmfs::ObjectSuffix::kBundle, options));
  if (stored.existed) {
    ++stats_.bundles_existing;
  } else {
    ++stats_.bundles_written;
    stats_.bytes_written += bytes.size();
  }
  return BundleRef{dir, plan.first_name, stored.digest, bytes.size(),
                   static_cast<uint32_t>(plan.members.size())};
}

Result<std::vector<BundleRef>> BundleWriter::BuildDirectory(
    const std::string& dir, const std::vector<DirectoryEntry>& listing) {
  ++stats_.directories;
  CVMFS_ASSIGN_OR_RETURN(std::vector<cvmfs::BundleCandidate> candidates,
                         BundleCandidates(store_, listing));
  std::vector<BundleRef> rows;
  for (const cvmfs::BundlePlan& plan :
       cvmfs::PlanBundles(std::move(candidates))) {
    CVMFS_ASSIGN_OR_RETURN(BundleRef row, Write(dir, plan));
    rows.push_back(std::move(row));
  }
  return rows;
}

Status UpdateBundles(CatalogTree* tree, const std::set<std::string>& dirs,
                     bool enabled, BundleWriter* writer) {
  for (const std::string& dir : dirs) {
    const std::string shown = dir.empty() ? "/" : dir;
    CVMFS_ASSIGN_OR_RETURN(auto entry, tree->Lookup(dir));
    // Gone (its rows went with it), or no longer a directory.
    if (!entry || !entry->IsDirectory() || entry->bind_mountpoint) continue;
    if (!enabled) {
      CVMFS_RETURN_IF_ERROR(tree->SetBundles(dir, {}));
      continue;
    }
    CVMFS_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> listing,
                           tree->List(dir));
    auto rows = writer->BuildDirectory(dir, listing);
    if (!rows.ok()) return rows.status().Annotate("bundles of " + shown);
    CVMFS_RETURN_IF_ERROR(tree->SetBundles(dir, *rows));
  }
  return Status::Ok();
}

Result<std::set<std::string>> AllDirectories(CatalogTree* tree) {
  std::set<std::string> dirs;
  std::vector<std::string> todo{""};
  while (!todo.empty()) {
    std::string dir = std::move(todo.back());
    todo.pop_back();
    CVMFS_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> listing,
                           tree->List(dir));
    for (const DirectoryEntry& e : listing)
      if (e.IsDirectory() && !e.bind_mountpoint)
        todo.push_back(dir + "/" + e.name);
    dirs.insert(std::move(dir));
  }
  return dirs;
}

}  // namespace publisher
