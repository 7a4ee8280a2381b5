#include "publisher/check.h"

#include <algorithm>
#include <map>
#include <optional>
#include <set>
#include <utility>

#include "cvmfs/bundle.h"
#include "cvmfs/catalog_walker.h"
#include "cvmfs/compression.h"
#include "cvmfs/object_name.h"
#include "cvmfs/prefetch_list.h"
#include "cvmfs/trust_chain.h"

namespace publisher {

using cvmfs::Status;

namespace {

struct CatalogCountersCheck {
  cvmfs::CatalogCounters stored;
  cvmfs::CounterSet recounted;  // self, from the rows
  std::vector<std::string> nested;
};

// Counts every row of `catalog` (chunk rows are added by the caller, which
// reads them anyway) and reads the stored statistics.
Status RecountSelf(cvmfs::Catalog* catalog, CatalogCountersCheck* cc) {
  CVMFS_ASSIGN_OR_RETURN(cc->stored, catalog->ReadCounters());
  CVMFS_RETURN_IF_ERROR(
      catalog->ForEachEntry([&](const cvmfs::PathHash&, const cvmfs::PathHash&,
                                const cvmfs::DirectoryEntry& e) -> Status {
        cc->recounted.Count(e, 1);
        return Status::Ok();
      }));
  CVMFS_ASSIGN_OR_RETURN(auto refs, catalog->NestedCatalogs());
  cc->recounted.nested = static_cast<int64_t>(refs.size());
  for (const auto& r : refs) cc->nested.push_back(r.path);
  return Status::Ok();
}

std::string Describe(const cvmfs::CounterSet& a, const cvmfs::CounterSet& b) {
  std::string out;
  for (const cvmfs::CounterField& f : cvmfs::kCounterFields) {
    if (a.*f.member == b.*f.member) continue;
    out += std::string(out.empty() ? "" : ", ") + f.name + " " +
           std::to_string(a.*f.member) + " (expected " +
           std::to_string(b.*f.member) + ")";
  }
  return out;
}

// self_* must equal the rows; subtree_* the children's self + subtree.
void CheckCounters(const std::map<std::string, CatalogCountersCheck>& all,
                   CheckReport* report) {
  for (const auto& [mountpoint, cc] : all) {
    const std::string name = mountpoint.empty() ? "/" : mountpoint;
    if (cc.stored.self != cc.recounted)
      report->problems.push_back("catalog " + name + ": self counters " +
                                 Describe(cc.stored.self, cc.recounted));
    cvmfs::CounterSet subtree;
    for (const std::string& child : cc.nested) {
      auto it = all.find(child);
      if (it != all.end()) subtree += it->second.stored.Total();
    }
    if (cc.stored.subtree != subtree)
      report->problems.push_back("catalog " + name + ": subtree counters " +
                                 Describe(cc.stored.subtree, subtree));
  }
}

// The root of the nested catalog mounted at `subtree`, found by descending
// from `root` through the nested catalogs whose mountpoints lead to it.
cvmfs::Result<cvmfs::Digest> FindNestedCatalog(cvmfs::CatalogWalker* walker,
                                               const cvmfs::Digest& root,
                                               const std::string& subtree) {
  std::string want = subtree;
  while (want.size() > 1 && want.back() == '/') want.pop_back();
  if (want.empty() || want == "/") return root;
  if (want.front() != '/') want = "/" + want;
  cvmfs::Digest current = root;
  for (;;) {
    CVMFS_ASSIGN_OR_RETURN(auto catalog, walker->Load(current));
    CVMFS_ASSIGN_OR_RETURN(auto refs, catalog->NestedCatalogs());
    const cvmfs::NestedCatalogRef* next = nullptr;
    for (const auto& r : refs) {
      if (r.path == want) return r.hash;
      if (want.compare(0, r.path.size() + 1, r.path + "/") == 0) next = &r;
    }
    if (next == nullptr)
      return Status::NotFound("no nested catalog is mounted at " + want);
    current = next->hash;
  }
}

// The signed files as they lie in a storage.
class StoredFiles : public cvmfs::TrustChainSource {
 public:
  explicit StoredFiles(cvmfs::ObjectStore* store) : store_(store) {}
  cvmfs::Result<std::string> FetchWhitelist() override {
    return store_->Get(std::string(cvmfs::kWhitelistName));
  }
  cvmfs::Result<std::string> FetchManifest() override {
    return store_->Get(std::string(cvmfs::kManifestName));
  }
  cvmfs::Result<std::string> FetchCertificate(
      const cvmfs::Digest& digest, const std::string& fqrn) override {
    auto pem = cvmfs::ReadVerifiedObject(store_, digest,
                                         cvmfs::ObjectSuffix::kCertificate);
    if (!pem.ok()) return pem.status().Annotate(fqrn + ": certificate");
    return pem;
  }

 private:
  cvmfs::ObjectStore* store_;
};

// Checks the members of one bundle as they stream by: each names a file of
// the directory and, when `verify`, its bytes hash to its digest.
class BundleMemberCheck : public cvmfs::BundleReader::Visitor {
 public:
  BundleMemberCheck(const std::map<cvmfs::Digest, std::string>& files,
                    bool verify, std::string what,
                    std::vector<std::string>* problems)
      : files_(files),
        verify_(verify),
        what_(std::move(what)),
        problems_(problems) {}
  Status BeginMember(const cvmfs::BundleMember& m) override {
    current_ = m.digest;
    if (files_.count(m.digest) == 0)
      problems_->push_back(what_ + " holds " + m.digest.ToString() +
                           ", the object of no file of its directory");
    if (verify_) hasher_.emplace(m.digest.algorithm);
    return Status::Ok();
  }
  Status MemberData(const void* data, size_t size) override {
    if (hasher_) hasher_->Update(data, size);
    return Status::Ok();
  }
  Status EndMember() override {
    if (hasher_ && hasher_->Finish() != current_)
      problems_->push_back(what_ + ": member " + current_.ToString() +
                           " does not match its hash");
    hasher_.reset();
    return Status::Ok();
  }

 private:
  const std::map<cvmfs::Digest, std::string>& files_;
  bool verify_;
  std::string what_;
  std::vector<std::string>* problems_;
  cvmfs::Digest current_;
  std::optional<cvmfs::Hasher> hasher_;
};

// The bundles a catalog lists (doc/format-bundles.md): each exists, has
// the row's size and member count, its header parses, its members are
// objects of files of its directory (the first one of the file named
// first_name) and, when `verify`, it and its members hash to their names.
void CheckBundles(cvmfs::ObjectStore* store, cvmfs::Catalog* catalog,
                  bool verify, CheckReport* report) {
  auto rows = catalog->AllBundles();
  if (!rows.ok()) {
    report->problems.push_back(rows.status().ToString());
    return;
  }
  std::string listed;
  bool have_listing = false;
  std::map<cvmfs::Digest, std::string> files;  // digest -> a name
  std::map<std::string, cvmfs::Digest> by_name;
  for (const cvmfs::BundleRef& row : *rows) {
    const std::string what = "bundle of " +
                             (row.path.empty() ? "/" : row.path) + " at '" +
                             row.first_name + "'";
    if (!have_listing || row.path != listed) {
      files.clear();
      by_name.clear();
      listed = row.path;
      have_listing = true;
      auto listing = catalog->List(row.path);
      if (!listing.ok()) {
        report->problems.push_back(what + ": " + listing.status().ToString());
        continue;
      }
      for (const cvmfs::DirectoryEntry& e : *listing) {
        if (!e.IsRegular() || e.chunked || e.external || !e.content_hash)
          continue;
        files.emplace(*e.content_hash, e.name);
        by_name.emplace(e.name, *e.content_hash);
      }
    }
    const std::string name =
        cvmfs::ObjectPath(row.hash, cvmfs::ObjectSuffix::kBundle);
    ++report->objects_checked;
    auto bytes = store->Get(name);
    if (!bytes.ok()) {
      report->problems.push_back("missing " + name + " (" + what + ")");
      continue;
    }
    if (bytes->size() != row.size) {
      report->problems.push_back(
          name + " (" + what + ") has " + std::to_string(bytes->size()) +
          " bytes, its row says " + std::to_string(row.size));
      continue;
    }
    BundleMemberCheck members(files, verify, what, &report->problems);
    cvmfs::BundleReader reader(row.hash.algorithm, &members);
    Status st = reader.Feed(bytes->data(), bytes->size());
    if (st.ok()) st = reader.Finish();
    if (!st.ok()) {
      report->problems.push_back(name + " (" + what + "): " + st.ToString());
      continue;
    }
    if (verify && reader.digest() != row.hash)
      report->problems.push_back("hash mismatch " + name + " (" + what + ")");
    if (reader.members().size() != row.members)
      report->problems.push_back(name + " (" + what + ") has " +
                                 std::to_string(reader.members().size()) +
                                 " members, its row says " +
                                 std::to_string(row.members));
    auto first = by_name.find(row.first_name);
    if (first == by_name.end() || reader.members().empty() ||
        reader.members().front().digest != first->second)
      report->problems.push_back(what +
                                 ": its first member is not the "
                                 "object of the file '" +
                                 row.first_name + "'");
  }
}

}  // namespace

cvmfs::Result<cvmfs::Manifest> VerifyStoredTrustChain(
    cvmfs::ObjectStore* store, const std::vector<std::string>& key_files,
    const std::string& fqrn, time_t now) {
  CVMFS_ASSIGN_OR_RETURN(auto keys, cvmfs::LoadMasterKeys(key_files));
  StoredFiles files(store);
  CVMFS_ASSIGN_OR_RETURN(cvmfs::VerifiedChain chain,
                         cvmfs::VerifyTrustChain(&files, keys, fqrn, now));
  return std::move(chain.manifest);
}

cvmfs::Result<CheckReport> ScrubStorage(cvmfs::ObjectStore* store,
                                        cvmfs::ProgressCounters* progress) {
  CheckReport report;
  CVMFS_ASSIGN_OR_RETURN(std::vector<std::string> names, store->ListObjects());
  if (progress) progress->StartPhase("objects", names.size());
  for (const std::string& name : names) {
    auto parsed = cvmfs::ParseObjectPath(name);
    if (!parsed.ok()) {
      report.problems.push_back("not an object name: " + name);
      continue;
    }
    ++report.objects_checked;
    auto bytes = store->Get(name);
    if (!bytes.ok()) {
      report.problems.push_back("unreadable " + name + ": " +
                                bytes.status().ToString());
      continue;
    }
    if (progress) progress->Add(1, bytes->size());
    if (cvmfs::HashString(parsed->digest.algorithm, *bytes) != parsed->digest)
      report.problems.push_back("hash mismatch " + name +
                                " (its content does not match its name)");
  }
  return report;
}

cvmfs::Result<CheckReport> CheckRevision(cvmfs::ObjectStore* store,
                                         const cvmfs::Digest& root,
                                         bool verify_content,
                                         const std::string& temp_dir) {
  CheckOptions options;
  options.verify_content = verify_content;
  return CheckRevision(store, root, options, temp_dir);
}

cvmfs::Result<CheckReport> CheckRevision(cvmfs::ObjectStore* store,
                                         const cvmfs::Digest& root_catalog,
                                         const CheckOptions& options,
                                         const std::string& temp_dir) {
  const bool verify_content = options.verify_content;
  CheckReport report;
  std::set<std::string> seen;
  auto check_object = [&](const std::string& name, const cvmfs::Digest& digest,
                          const std::string& path, bool compressed) {
    if (!options.check_data) return;
    if (!seen.insert(name).second) return;
    ++report.objects_checked;
    if (!verify_content) {
      if (!store->Exists(name))
        report.problems.push_back("missing " + name + " (" + path + ")");
      return;
    }
    auto bytes = store->Get(name);
    if (!bytes.ok()) {
      report.problems.push_back("missing " + name + " (" + path + ")");
      return;
    }
    if (cvmfs::HashString(digest.algorithm, *bytes) != digest) {
      report.problems.push_back("hash mismatch " + name + " (" + path + ")");
      return;
    }
    if (compressed) {
      std::string raw;
      Status st = cvmfs::Decompress(*bytes, &raw);
      if (!st.ok())
        report.problems.push_back("corrupt zlib stream " + name + " (" + path +
                                  ")");
    }
  };
  // Per catalog: stored counters, recounted self counters, nested mountpoints.
  std::map<std::string, CatalogCountersCheck> counters;
  cvmfs::CatalogWalker walker(store, temp_dir);
  cvmfs::Digest root = root_catalog;
  if (!options.subtree.empty()) {
    CVMFS_ASSIGN_OR_RETURN(
        root, FindNestedCatalog(&walker, root_catalog, options.subtree));
  }
  if (options.progress) options.progress->StartPhase("entries");
  Status st = walker.Walk(root, [&](const cvmfs::CatalogVisit& v) -> Status {
    ++report.catalogs;
    CatalogCountersCheck& cc = counters[v.mountpoint];
    CVMFS_RETURN_IF_ERROR(RecountSelf(v.catalog, &cc));
    if (options.progress && v.depth == 0) {
      // What the statistics promise; a wrong count is reported below.
      const cvmfs::CounterSet t = cc.stored.Total();
      options.progress->SetTotal(static_cast<uint64_t>(
          std::max<int64_t>(0, t.regular + t.symlink + t.special + t.dir)));
    }
    if (v.depth == 0) {  // recorded prefetch lists hang off the root catalog
      auto lists = cvmfs::PrefetchListsObjectOf(*v.catalog);
      if (!lists.ok())
        report.problems.push_back(lists.status().message());
      else if (*lists)
        check_object(cvmfs::ObjectPath(**lists, cvmfs::ObjectSuffix::kNone),
                     **lists, "prefetch lists", true);
    }
    if (options.check_data)
      CheckBundles(store, v.catalog, verify_content, &report);
    return cvmfs::CatalogWalker::ForEachPath(
        v.catalog,
        [&](const std::string& path, const cvmfs::DirectoryEntry& e) -> Status {
          ++report.entries;
          if (options.progress) options.progress->Add(1);
          if (e.IsRegular() && e.external && e.chunked) {
            CVMFS_ASSIGN_OR_RETURN(auto chunks, v.catalog->Chunks(path));
            cc.recounted.chunks += static_cast<int64_t>(chunks.size());
          }
          if (!e.IsRegular() || e.external) return Status::Ok();
          bool compressed = e.compression == cvmfs::Compression::kZlib;
          if (e.chunked) {
            CVMFS_ASSIGN_OR_RETURN(auto chunks, v.catalog->Chunks(path));
            cc.recounted.chunks += static_cast<int64_t>(chunks.size());
            uint64_t expect = 0;
            for (auto& c : chunks) {
              if (c.offset != expect)
                report.problems.push_back("chunk list of " + path +
                                          " has a gap at " +
                                          std::to_string(expect));
              expect = c.offset + c.size;
              check_object(
                  cvmfs::ObjectPath(c.hash, cvmfs::ObjectSuffix::kPartial),
                  c.hash, path, compressed);
            }
            if (expect != e.size)
              report.problems.push_back("chunks of " + path + " cover " +
                                        std::to_string(expect) + " of " +
                                        std::to_string(e.size) + " bytes");
          } else if (e.content_hash) {
            check_object(
                cvmfs::ObjectPath(*e.content_hash, cvmfs::ObjectSuffix::kNone),
                *e.content_hash, path, compressed);
          } else {
            report.problems.push_back("regular file without content hash: " +
                                      path);
          }
          return Status::Ok();
        });
  });
  if (!st.ok()) report.problems.push_back(st.ToString());
  if (st.ok()) CheckCounters(counters, &report);
  return report;
}

}  // namespace publisher
