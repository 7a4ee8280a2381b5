#include "publisher/gc.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cctype>
#include <cerrno>
#include <cstdio>
#include <ctime>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/catalog/reflog_db.h"
#include "cvmfs/file_util.h"
#include "cvmfs/prefetch_list.h"
#include "cvmfs/text.h"
#include "cvmfs/time_format.h"
#include "publisher/spool_layout.h"

namespace publisher {

using cvmfs::Digest;
using cvmfs::ObjectSuffix;
using cvmfs::Result;
using cvmfs::Status;

// ---------------------------------------------------------------------------
// ReachableObjects

ReachableObjects::ReachableObjects(cvmfs::ObjectStore* store,
                                   const std::string& temp_dir,
                                   cvmfs::ProgressCounters* progress)
    : loader_(store, temp_dir), progress_(progress) {}

void ReachableObjects::Mark(const Digest& digest, ObjectSuffix suffix) {
  marked_.insert(Key{digest, suffix});
}

bool ReachableObjects::Contains(const Digest& digest,
                                ObjectSuffix suffix) const {
  return marked_.count(Key{digest, suffix}) > 0;
}

Result<ReachableObjects::RootInfo> ReachableObjects::MarkRevision(
    const Digest& root) {
  CVMFS_ASSIGN_OR_RETURN(auto catalog, loader_.Load(root));
  RootInfo info{catalog->revision(), catalog->last_modified(),
                catalog->previous_revision()};
  if (!marked_.insert(Key{root, ObjectSuffix::kCatalog}).second) return info;
  ++catalogs_walked_;
  Status st = MarkCatalogContents(catalog.get());
  // The recorded prefetch lists (doc/format-prefetch-list.md) hang off the
  // root catalog's properties. A malformed reference stops the collection
  // rather than freeing what it may have meant.
  if (st.ok()) st = MarkPrefetchLists(*catalog);
  // Not NotFound: a missing nested catalog must not look like a missing
  // revision, which callers may skip.
  if (!st.ok())
    return Status::Corruption(
        "revision " + std::to_string(info.revision) + " (root catalog " +
        root.ToString() + ") cannot be walked completely: " + st.ToString());
  return info;
}

Status ReachableObjects::MarkPrefetchLists(const cvmfs::Catalog& root) {
  CVMFS_ASSIGN_OR_RETURN(std::optional<Digest> lists,
                         cvmfs::PrefetchListsObjectOf(root));
  if (lists) Mark(*lists, ObjectSuffix::kNone);
  return Status::Ok();
}

Status ReachableObjects::MarkCatalog(const Digest& hash) {
  if (!marked_.insert(Key{hash, ObjectSuffix::kCatalog}).second)
    return Status::Ok();
  ++catalogs_walked_;
  if (progress_) progress_->Add(1);
  CVMFS_ASSIGN_OR_RETURN(auto catalog, loader_.Load(hash));
  return MarkCatalogContents(catalog.get());
}

Status ReachableObjects::MarkCatalogContents(cvmfs::Catalog* catalog) {
  CVMFS_RETURN_IF_ERROR(catalog->Walk(
      [&](const std::string& path, const cvmfs::DirectoryEntry& e) -> Status {
        // External files live outside the storage; nothing to keep.
        if (!e.IsRegular() || e.external) return Status::Ok();
        // For chunked files this is the (optional) whole-file object.
        if (e.content_hash) Mark(*e.content_hash, ObjectSuffix::kNone);
        if (!e.chunked) return Status::Ok();
        CVMFS_ASSIGN_OR_RETURN(auto chunks, catalog->Chunks(path));
        for (const cvmfs::FileChunk& c : chunks)
          Mark(c.hash, ObjectSuffix::kPartial);
        return Status::Ok();
      }));
  // Bundles of the directories this catalog holds (doc/format-bundles.md).
  CVMFS_ASSIGN_OR_RETURN(auto bundles, catalog->AllBundles());
  for (const cvmfs::BundleRef& b : bundles) Mark(b.hash, ObjectSuffix::kBundle);
  CVMFS_ASSIGN_OR_RETURN(auto nested, catalog->NestedCatalogs());
  for (const cvmfs::NestedCatalogRef& ref : nested) {
    Status st = MarkCatalog(ref.hash);
    if (!st.ok()) return st.Annotate("nested catalog " + ref.path);
  }
  return Status::Ok();
}

// ---------------------------------------------------------------------------
// CollectGarbage

namespace {

Status CheckCollectable(const ServerConfig& config,
                        const cvmfs::Manifest& manifest) {
  if (!config.garbage_collection)
    return Status::InvalidArgument(
        "repository " + config.fqrn +
        " is not garbage-collectable (CVMFS_GARBAGE_COLLECTION is not true "
        "in its server.conf; create repositories for gc with "
        "`cvmfs_server mkfs -z`)");
  if (!manifest.garbage_collectable)
    return Status::InvalidArgument(
        "repository " + config.fqrn +
        " is not garbage-collectable (its manifest says G=no; publish once "
        "after setting CVMFS_GARBAGE_COLLECTION=true)");
  return Status::Ok();
}

// Whether the revision before the one described by `info` (at `depth`
// steps from the current one) is kept too.
bool KeepsPrevious(const ReachableObjects::RootInfo& info, uint64_t depth,
                   const GcPolicy& policy) {
  if (policy.keep_revisions) return depth < *policy.keep_revisions;
  // The previous revision was served until this one was published.
  return policy.keep_since && info.last_modified >= *policy.keep_since;
}

// Marks the current revision and the ones before it the policy keeps.
Status MarkHistory(const Digest& current_root, const GcPolicy& policy,
                   ReachableObjects* marks, GcReport* report) {
  auto info = marks->MarkRevision(current_root);
  if (!info.ok()) return info.status().Annotate("current revision");
  report->kept.push_back(
      {current_root, info->revision, info->last_modified, "current"});
  for (uint64_t depth = 0;
       KeepsPrevious(*info, depth, policy) && info->previous_revision;
       ++depth) {
    const Digest previous = *info->previous_revision;
    auto prev = marks->MarkRevision(previous);
    // Collected earlier: the chain ends here.
    if (!prev.ok() && prev.status().IsNotFound()) break;
    if (!prev.ok())
      return prev.status().Annotate("revision before " +
                                    std::to_string(info->revision));
    report->kept.push_back(
        {previous, prev->revision, prev->last_modified, "history"});
    info = std::move(prev);
  }
  return Status::Ok();
}

// Marks every revision the history database names: named tags, automatic
// tags, trunk and trunk-previous (the default rollback target).
Status MarkTags(const GcStorage& storage, ReachableObjects* marks,
                GcReport* report) {
  if (!storage.manifest.history) return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(
      auto history, OpenStoredHistory(storage.store, *storage.manifest.history,
                                      storage.temp_dir));
  CVMFS_ASSIGN_OR_RETURN(std::vector<cvmfs::Tag> tags, history->List());
  for (const cvmfs::Tag& tag : tags) {
    bool known = false;
    for (KeptRevision& k : report->kept) {
      if (k.root != tag.root_hash) continue;
      k.reason += ", tag " + tag.name;
      known = true;
    }
    if (known) continue;
    auto info = marks->MarkRevision(tag.root_hash);
    if (!info.ok() && info.status().IsNotFound()) {
      report->warnings.push_back(
          "tag " + tag.name + " (revision " + std::to_string(tag.revision) +
          ") names root catalog " + tag.root_hash.ToString() +
          ", which is no longer stored");
      continue;
    }
    if (!info.ok()) return info.status().Annotate("tag " + tag.name);
    report->kept.push_back({tag.root_hash, info->revision, info->last_modified,
                            "tag " + tag.name});
  }
  return Status::Ok();
}

std::optional<ObjectSuffix> ReflogSuffix(int type) {
  switch (static_cast<cvmfs::ReflogType>(type)) {
    case cvmfs::ReflogType::kCatalog:
      return ObjectSuffix::kCatalog;
    case cvmfs::ReflogType::kCertificate:
      return ObjectSuffix::kCertificate;
    case cvmfs::ReflogType::kHistory:
      return ObjectSuffix::kHistory;
    case cvmfs::ReflogType::kMetainfo:
      return ObjectSuffix::kMetainfo;
  }
  return std::nullopt;
}

// Removes the entries of unmarked objects from the reflog and stores it
// (unless a dry run). A repository without reflog is collected all the
// same: the candidates come from listing data/.
Status PruneReflog(cvmfs::ObjectStore* store, const ReachableObjects& marks,
                   const std::string& temp_dir, bool dry_run,
                   GcReport* report) {
  auto bytes = store->Get(std::string(cvmfs::kReflogName));
  if (!bytes.ok() && bytes.status().IsNotFound()) {
    report->warnings.push_back("the repository has no reflog (.cvmfsreflog)");
    return Status::Ok();
  }
  if (!bytes.ok()) return bytes.status().Annotate("reading the reflog");
  const std::string file = temp_dir + "/reflog.db";
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(file, *bytes, 0600));
  CVMFS_ASSIGN_OR_RETURN(auto reflog, cvmfs::ReflogDb::OpenForWriting(file));
  CVMFS_ASSIGN_OR_RETURN(auto refs, reflog->List());
  for (const auto& [digest, type] : refs) {
    std::optional<ObjectSuffix> suffix = ReflogSuffix(type);
    if (!suffix) {
      report->warnings.push_back("reflog entry " + digest.ToString() +
                                 " has unknown type " + std::to_string(type) +
                                 "; kept");
      continue;
    }
    if (marks.Contains(digest, *suffix)) continue;
    CVMFS_RETURN_IF_ERROR(reflog->Remove(digest));
    ++report->reflog_entries_removed;
  }
  CVMFS_RETURN_IF_ERROR(reflog->Close());
  reflog.reset();
  if (dry_run || report->reflog_entries_removed == 0) return Status::Ok();
  CVMFS_ASSIGN_OR_RETURN(std::string updated, cvmfs::ReadFile(file));
  return store->Put(std::string(cvmfs::kReflogName), updated)
      .Annotate("storing the reflog");
}

struct Condemned {
  std::string name;
  uint64_t bytes = 0;
};

// Every object under data/ that is not marked.
Result<std::vector<Condemned>> FindGarbage(cvmfs::ObjectStore* store,
                                           const ReachableObjects& marks,
                                           GcReport* report,
                                           cvmfs::ProgressCounters* progress) {
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> names, store->ListObjects());
  if (progress) progress->StartPhase("objects scanned", names.size());
  std::vector<Condemned> garbage;
  for (const std::string& name : names) {
    ++report->objects_scanned;
    if (progress) progress->Add(1);
    auto parsed = cvmfs::ParseObjectPath(name);
    if (!parsed.ok()) {
      report->warnings.push_back("left alone, not an object name: " + name);
      continue;
    }
    if (marks.Contains(parsed->digest, parsed->suffix)) continue;
    CVMFS_ASSIGN_OR_RETURN(uint64_t size, store->Size(name));
    garbage.push_back({name, size});
  }
  return garbage;
}

Status Sweep(cvmfs::ObjectStore* store, const std::vector<Condemned>& garbage,
             const GcOptions& options, GcReport* report) {
  if (options.progress)
    options.progress->StartPhase("objects deleted", garbage.size());
  for (const Condemned& c : garbage) {
    if (!options.dry_run) CVMFS_RETURN_IF_ERROR(store->Remove(c.name));
    ++report->objects_deleted;
    report->bytes_deleted += c.bytes;
    if (options.progress) options.progress->Add(1, c.bytes);
    if (options.on_sweep) options.on_sweep(c.name, c.bytes);
  }
  return Status::Ok();
}

}  // namespace

Result<GcReport> CollectGarbage(Repository* repo, const GcOptions& options) {
  const ServerConfig& config = repo->config();
  // The policy is checked and defaulted by CollectStorageGarbage.
  // Held until `repo` is destroyed: no publish or tag change meanwhile.
  CVMFS_RETURN_IF_ERROR(repo->Lock());
  // Only the spool names are used; the union mount point does not matter.
  const SpoolLayout spool =
      SpoolLayout::For(cvmfs::SystemPaths{}, config.fqrn, config.spool_dir);
  if (cvmfs::PathExists(spool.in_transaction))
    return Status::Busy("a transaction is open on " + config.fqrn + " (" +
                        spool.in_transaction +
                        "); publish or abort it before running gc");
  CVMFS_ASSIGN_OR_RETURN(cvmfs::SignedManifest manifest,
                         repo->CurrentManifest());
  CVMFS_RETURN_IF_ERROR(CheckCollectable(config, manifest.manifest));
  CVMFS_ASSIGN_OR_RETURN(std::string temp_dir, repo->MakeTempDir());
  cvmfs::ScopedRemoveTree cleanup(temp_dir);
  CVMFS_ASSIGN_OR_RETURN(
      GcReport report,
      CollectStorageGarbage({repo->store(), manifest.manifest, temp_dir},
                            options));
  // The pruned reflog no longer has the hash the manifest names: sign the
  // manifest again (a replica's reflog is replaced by its next snapshot).
  if (!options.dry_run && report.reflog_entries_removed > 0)
    CVMFS_RETURN_IF_ERROR(repo->ResignManifest().Annotate(
        "re-signing the manifest for the pruned reflog"));
  return report;
}

Result<std::unique_ptr<cvmfs::HistoryDb>> OpenStoredHistory(
    cvmfs::ObjectStore* store, const Digest& history,
    const std::string& temp_dir) {
  CVMFS_ASSIGN_OR_RETURN(
      std::string raw,
      cvmfs::ReadVerifiedObject(store, history, ObjectSuffix::kHistory));
  const std::string file = temp_dir + "/history." + history.ToString() + ".db";
  CVMFS_RETURN_IF_ERROR(cvmfs::WriteFileAtomic(file, raw, 0600));
  return cvmfs::HistoryDb::OpenReadOnly(file);
}

Result<GcReport> CollectStorageGarbage(const GcStorage& storage,
                                       const GcOptions& options) {
  GcPolicy policy = options.policy;
  if (policy.keep_revisions && policy.keep_since)
    return Status::InvalidArgument(
        "keep either a number of revisions (-r) or the revisions "
        "since a time (-t), not both");
  if (!policy.keep_revisions && !policy.keep_since)
    policy.keep_since =
        static_cast<int64_t>(::time(nullptr)) - kDefaultGcTimespan;
  GcReport report;
  if (options.progress) options.progress->StartPhase("catalogs marked");
  ReachableObjects marks(storage.store, storage.temp_dir, options.progress);
  const cvmfs::Manifest& m = storage.manifest;
  CVMFS_RETURN_IF_ERROR(MarkHistory(m.root_catalog, policy, &marks, &report));
  CVMFS_RETURN_IF_ERROR(MarkTags(storage, &marks, &report));
  if (m.certificate) marks.Mark(*m.certificate, ObjectSuffix::kCertificate);
  if (m.history) marks.Mark(*m.history, ObjectSuffix::kHistory);
  if (m.metainfo) marks.Mark(*m.metainfo, ObjectSuffix::kMetainfo);
  report.catalogs_marked = marks.catalogs_walked();
  report.objects_marked = marks.size();

  CVMFS_ASSIGN_OR_RETURN(auto garbage, FindGarbage(storage.store, marks,
                                                   &report, options.progress));
  // The reflog first: it must never name an object that is gone.
  CVMFS_RETURN_IF_ERROR(PruneReflog(storage.store, marks, storage.temp_dir,
                                    options.dry_run, &report));
  CVMFS_RETURN_IF_ERROR(Sweep(storage.store, garbage, options, &report));
  return report;
}

// ---------------------------------------------------------------------------
// GcReportText

std::string GcReportText(const GcReport& r, bool dry_run) {
  using std::to_string;
  std::string out = "Kept " + to_string(r.kept.size()) + " revisions:\n";
  for (const KeptRevision& k : r.kept) {
    out += "  revision " + to_string(k.revision) + "  " + k.root.ToString() +
           "  published " +
           cvmfs::FormatTime(k.published, cvmfs::kDateTimeFormat,
                             cvmfs::TimeZone::kLocal) +
           "  (" + k.reason + ")\n";
  }
  out += "Marked " + to_string(r.catalogs_marked) + " catalogs, " +
         to_string(r.objects_marked) + " referenced objects\n";
  char mb[32];
  std::snprintf(mb, sizeof(mb), "%.1f", r.bytes_deleted / 1e6);
  out += std::string(dry_run ? "Would delete " : "Deleted ") +
         to_string(r.objects_deleted) + " of " + to_string(r.objects_scanned) +
         " objects (" + mb + " MB, " + to_string(r.bytes_deleted) +
         " bytes); " + (dry_run ? "would remove " : "removed ") +
         to_string(r.reflog_entries_removed) + " reflog entries\n";
  return out;
}

// ParseGcTime

namespace {

// "N <unit>[s] ago"
std::optional<int64_t> ParseAgo(const std::string& s, int64_t now) {
  long long n = 0;
  char unit[16] = {0};
  int consumed = 0;
  if (std::sscanf(s.c_str(), "%lld %15[a-z] ago%n", &n, unit, &consumed) != 2 ||
      consumed != static_cast<int>(s.size()) || n < 0)
    return std::nullopt;
  std::string u(unit);
  if (u.size() > 1 && u.back() == 's') u.pop_back();
  static const std::pair<const char*, int64_t> kUnits[] = {{"second", 1},
                                                           {"minute", 60},
                                                           {"hour", 3600},
                                                           {"day", 86400},
                                                           {"week", 7 * 86400}};
  for (const auto& [name, seconds] : kUnits)
    if (u == name) return now - n * seconds;
  return std::nullopt;
}

// "YYYY-MM-DD[( |T)HH:MM[:SS]]", local time
std::optional<int64_t> ParseDate(const std::string& s) {
  struct tm tm = {};
  int consumed = 0;
  if (std::sscanf(s.c_str(), "%4d-%2d-%2d%n", &tm.tm_year, &tm.tm_mon,
                  &tm.tm_mday, &consumed) != 3)
    return std::nullopt;
  if (consumed != static_cast<int>(s.size())) {
    const char sep = s[consumed];
    int rest = 0;
    const std::string tail = s.substr(consumed + 1);
    if (sep != ' ' && sep != 'T') return std::nullopt;
    if (std::sscanf(tail.c_str(), "%2d:%2d%n:%2d%n", &tm.tm_hour, &tm.tm_min,
                    &rest, &tm.tm_sec, &rest) < 2 ||
        rest != static_cast<int>(tail.size()))
      return std::nullopt;
  }
  if (tm.tm_mon < 1 || tm.tm_mon > 12 || tm.tm_mday < 1 || tm.tm_mday > 31 ||
      tm.tm_hour > 23 || tm.tm_min > 59 || tm.tm_sec > 60)
    return std::nullopt;
  tm.tm_year -= 1900;
  tm.tm_mon -= 1;
  tm.tm_isdst = -1;
  time_t t = ::mktime(&tm);
  if (t == static_cast<time_t>(-1)) return std::nullopt;
  return static_cast<int64_t>(t);
}

}  // namespace

Result<int64_t> ParseGcTime(std::string_view text, int64_t now) {
  std::string_view t = cvmfs::Trim(text);
  if (!t.empty() && t.front() == '@') t.remove_prefix(1);
  if (auto v = cvmfs::ParseUint64(t, 18)) return static_cast<int64_t>(*v);
  const std::string s(t);
  if (auto v = ParseAgo(s, now)) return *v;
  if (auto v = ParseDate(s)) return *v;
  return Status::InvalidArgument(
      "cannot parse time stamp '" + std::string(text) +
      "' (use Unix seconds, YYYY-MM-DD [HH:MM[:SS]] or "
      "'N days ago')");
}

}  // namespace publisher
