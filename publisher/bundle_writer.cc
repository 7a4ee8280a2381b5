#include "publisher/bundle_writer.h"

#include <utility>

#include "cvmfs/object_name.h"
#include "cvmfs/parallel_for.h"

namespace publisher {

using cvmfs::BundleRef;
using cvmfs::DirectoryEntry;
using cvmfs::Result;
using cvmfs::Status;

Result<std::vector<cvmfs::BundleCandidate>> BundleCandidates(
    cvmfs::ObjectStore* store, const std::vector<DirectoryEntry>& listing,
    std::map<std::string, std::string>* held, uint64_t held_budget) {
  std::vector<cvmfs::BundleCandidate> out;
  uint64_t held_bytes = 0;
  for (const DirectoryEntry& e : listing) {
    if (!e.IsRegular() || e.chunked || e.external || !e.content_hash) continue;
    std::string name =
        cvmfs::ObjectPath(*e.content_hash, cvmfs::ObjectSuffix::kNone);
    uint64_t size = 0;
    Status st;
    if (held_bytes < held_budget) {
      auto bytes = store->GetAtMost(name, cvmfs::kBundleMemberMax);
      if (bytes.ok() && bytes->has_value()) {
        size = (*bytes)->size();
        held_bytes += size;
        (*held)[name] = std::move(**bytes);
      } else if (bytes.ok()) {
        size = cvmfs::kBundleMemberMax + 1;  // too large to be a member
      } else {
        st = bytes.status();
      }
    } else {
      auto stored = store->Size(name);
      if (stored.ok()) size = *stored;
      st = stored.status();
    }
    // A missing object (a broken repository; `check` names it) is no member.
    if (st.code() == Status::Code::kNotFound) continue;
    if (!st.ok()) return st.Annotate("object of " + e.name);
    out.push_back(cvmfs::BundleCandidate{e.name, *e.content_hash, size});
  }
  return out;
}

Result<BundleRef> BundleWriter::Write(
    const std::string& dir, const cvmfs::BundlePlan& plan,
    const std::map<std::string, std::string>& held) {
  std::string bytes = cvmfs::SerializeBundleHeader(plan.members);
  bytes.reserve(bytes.size() + plan.member_bytes());
  for (const cvmfs::BundleMember& m : plan.members) {
    const std::string name =
        cvmfs::ObjectPath(m.digest, cvmfs::ObjectSuffix::kNone);
    auto kept = held.find(name);
    std::string read;
    if (kept == held.end()) {
      CVMFS_ASSIGN_OR_RETURN(read, store_->Get(name));
    }
    const std::string& member = kept == held.end() ? read : kept->second;
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
  {
    cvmfs::MutexLock lock(&mu_);
    if (stored.existed) {
      ++stats_.bundles_existing;
    } else {
      ++stats_.bundles_written;
      stats_.bytes_written += bytes.size();
    }
  }
  return BundleRef{dir, plan.first_name, stored.digest, bytes.size(),
                   static_cast<uint32_t>(plan.members.size())};
}

BundleStats BundleWriter::stats() const {
  cvmfs::MutexLock lock(&mu_);
  return stats_;
}

Result<std::vector<BundleRef>> BundleWriter::BuildDirectory(
    const std::string& dir, const std::vector<DirectoryEntry>& listing) {
  {
    cvmfs::MutexLock lock(&mu_);
    ++stats_.directories;
  }
  std::map<std::string, std::string> held;
  CVMFS_ASSIGN_OR_RETURN(
      std::vector<cvmfs::BundleCandidate> candidates,
      BundleCandidates(store_, listing, &held, held_budget_));
  std::vector<BundleRef> rows;
  for (const cvmfs::BundlePlan& plan :
       cvmfs::PlanBundles(std::move(candidates))) {
    CVMFS_ASSIGN_OR_RETURN(BundleRef row, Write(dir, plan, held));
    rows.push_back(std::move(row));
  }
  return rows;
}

namespace {

constexpr size_t kBundleBatchDirs = 256;
constexpr size_t kBundleBatchEntries = 65536;

// A directory listed for its bundles, and what building them gave.
struct BundleJob {
  std::string dir;
  std::vector<DirectoryEntry> listing;
  Result<std::vector<BundleRef>> rows = Status::Unavailable("not built");
};

// Builds the bundles of `jobs` on up to one thread per core.
void BuildBatch(std::vector<BundleJob>* jobs, BundleWriter* writer) {
  cvmfs::ParallelFor(jobs->size(), cvmfs::CoreThreads(), [&](size_t i) {
    BundleJob& job = (*jobs)[i];
    job.rows = writer->BuildDirectory(job.dir, job.listing);
  });
}

}  // namespace

Status UpdateBundles(CatalogTree* tree, const std::set<std::string>& dirs,
                     bool enabled, BundleWriter* writer) {
  std::vector<BundleJob> batch;
  size_t entries = 0;
  auto flush = [&]() -> Status {
    BuildBatch(&batch, writer);
    for (BundleJob& job : batch) {
      if (!job.rows.ok())
        return job.rows.status().Annotate("bundles of " +
                                          (job.dir.empty() ? "/" : job.dir));
      CVMFS_RETURN_IF_ERROR(tree->SetBundles(job.dir, *job.rows));
    }
    batch.clear();
    entries = 0;
    return Status::Ok();
  };
  for (const std::string& dir : dirs) {
    CVMFS_ASSIGN_OR_RETURN(auto entry, tree->Lookup(dir));
    // Gone (its rows went with it), or no longer a directory.
    if (!entry || !entry->IsDirectory() || entry->bind_mountpoint) continue;
    if (!enabled) {
      CVMFS_RETURN_IF_ERROR(tree->SetBundles(dir, {}));
      continue;
    }
    CVMFS_ASSIGN_OR_RETURN(std::vector<DirectoryEntry> listing,
                           tree->List(dir));
    entries += listing.size();
    batch.push_back(BundleJob{dir, std::move(listing)});
    if (batch.size() >= kBundleBatchDirs || entries >= kBundleBatchEntries)
      CVMFS_RETURN_IF_ERROR(flush());
  }
  return flush();
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
