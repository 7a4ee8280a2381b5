// Test helpers for replication: a fixture repository served from a
// MemoryFetcher, what of a storage is reachable (computed independently of
// the replicator, with CatalogWalker over the source's own files), and the
// files a storage holds. Header-only; used by server/replication/*_test.cc.
#ifndef SERVER_REPLICATION_REPLICATION_TEST_UTIL_H_
#define SERVER_REPLICATION_REPLICATION_TEST_UTIL_H_

#include <map>
#include <set>
#include <string>
#include <vector>

#include "cvmfs/catalog/history_db.h"
#include "cvmfs/catalog_walker.h"
#include "cvmfs/file_util.h"
#include "cvmfs/manifest.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "testing/memory_fetcher.h"
#include "testing/test_env.h"

namespace replication::testing {

inline const char* const kFixtures[] = {"sha1-zlib.example.org",
                                        "shake128-none.example.org"};

inline std::string FixtureStorage(const std::string& fqrn) {
  return cvmfs::testing::FixturesDir() + "/" + fqrn + "/srv/cvmfs/" + fqrn;
}
inline std::string FixtureKey(const std::string& fqrn) {
  return cvmfs::testing::FixturesDir() + "/" + fqrn + "/" + fqrn + ".pub";
}

// Relative path -> bytes of every regular file below `root` (data/txn
// excluded).
inline std::map<std::string, std::string> FilesBelow(
    const std::string& root, const std::string& rel = "") {
  std::map<std::string, std::string> out;
  auto names = cvmfs::ListDirectory(rel.empty() ? root : root + "/" + rel);
  if (!names.ok()) return out;
  for (const std::string& n : *names) {
    std::string r = rel.empty() ? n : rel + "/" + n;
    if (r == "data/txn") continue;
    if (cvmfs::IsDirectory(root + "/" + r)) {
      auto sub = FilesBelow(root, r);
      out.insert(sub.begin(), sub.end());
    } else {
      out[r] = cvmfs::ReadFile(root + "/" + r).value();
    }
  }
  return out;
}

// Serves every file of a storage directory.
inline void ServeStorage(const std::string& storage,
                         cvmfs::MemoryFetcher* fetcher) {
  for (auto& [path, bytes] : FilesBelow(storage)) fetcher->Put(path, bytes);
}

// The files a complete replica of `storage`'s current revision must hold:
// .cvmfspublished, .cvmfswhitelist, .cvmfsreflog and every object reachable
// from the root catalog and from the tags' root catalogs.
inline std::set<std::string> ReachableFiles(const std::string& storage,
                                            const std::string& temp_dir) {
  cvmfs::LocalObjectStore store(storage);
  auto m = cvmfs::Manifest::Parse(store.Get(".cvmfspublished").value())
               .value()
               .manifest;
  std::set<std::string> out = {".cvmfspublished", ".cvmfswhitelist"};
  if (m.reflog) out.insert(".cvmfsreflog");
  std::vector<cvmfs::Digest> roots = {m.root_catalog};
  if (m.certificate)
    out.insert(
        cvmfs::ObjectPath(*m.certificate, cvmfs::ObjectSuffix::kCertificate));
  if (m.metainfo)
    out.insert(cvmfs::ObjectPath(*m.metainfo, cvmfs::ObjectSuffix::kMetainfo));
  if (m.history) {
    out.insert(cvmfs::ObjectPath(*m.history, cvmfs::ObjectSuffix::kHistory));
    std::string raw = cvmfs::ReadVerifiedObject(&store, *m.history,
                                                cvmfs::ObjectSuffix::kHistory)
                          .value();
    std::string file = temp_dir + "/reachable-history.db";
    (void)cvmfs::WriteFileAtomic(file, raw);
    auto history = cvmfs::HistoryDb::OpenReadOnly(file).value();
    for (auto& tag : history->List().value()) roots.push_back(tag.root_hash);
  }
  cvmfs::CatalogWalker walker(&store, temp_dir);
  for (const cvmfs::Digest& root : roots) {
    cvmfs::Status st = walker.Walk(root, [&](const cvmfs::CatalogVisit& v) {
      out.insert(cvmfs::ObjectPath(v.hash, cvmfs::ObjectSuffix::kCatalog));
      return cvmfs::CatalogWalker::ForEachPath(
          v.catalog,
          [&](const std::string& path, const cvmfs::DirectoryEntry& e) {
            if (!e.IsRegular() || e.external) return cvmfs::Status::Ok();
            if (e.content_hash)
              out.insert(cvmfs::ObjectPath(*e.content_hash,
                                           cvmfs::ObjectSuffix::kNone));
            for (auto& c : v.catalog->Chunks(path).value())
              out.insert(
                  cvmfs::ObjectPath(c.hash, cvmfs::ObjectSuffix::kPartial));
            return cvmfs::Status::Ok();
          });
    });
    if (!st.ok()) throw std::runtime_error(st.ToString());
  }
  return out;
}

}  // namespace replication::testing

#endif  // SERVER_REPLICATION_REPLICATION_TEST_UTIL_H_
