#include "publisher/check.h"

#include <set>

#include "cvmfs/catalog_walker.h"
#include "cvmfs/compression.h"
#include "cvmfs/object_name.h"

namespace publisher {

using cvmfs::Status;

cvmfs::Result<CheckReport> CheckRevision(cvmfs::ObjectStore* store, const cvmfs::Digest& root,
                                         bool verify_content, const std::string& temp_dir) {
  CheckReport report;
  std::set<std::string> seen;
  auto check_object = [&](const std::string& name, const cvmfs::Digest& digest,
                          const std::string& path, bool compressed) {
    if (!seen.insert(name).second) return;
    ++report.objects_checked;
    if (!verify_content) {
      if (!store->Exists(name)) report.problems.push_back("missing " + name + " (" + path + ")");
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
      if (!st.ok()) report.problems.push_back("corrupt zlib stream " + name + " (" + path + ")");
    }
  };
  cvmfs::CatalogWalker walker(store, temp_dir);
  Status st = walker.Walk(root, [&](const cvmfs::CatalogVisit& v) -> Status {
    ++report.catalogs;
    return cvmfs::CatalogWalker::ForEachPath(
        v.catalog, [&](const std::string& path, const cvmfs::DirectoryEntry& e) -> Status {
          ++report.entries;
          if (!e.IsRegular() || e.external) return Status::Ok();
          bool compressed = e.compression == cvmfs::Compression::kZlib;
          if (e.chunked) {
            CVMFS_ASSIGN_OR_RETURN(auto chunks, v.catalog->Chunks(path));
            uint64_t expect = 0;
            for (auto& c : chunks) {
              if (c.offset != expect)
                report.problems.push_back("chunk list of " + path + " has a gap at " +
                                          std::to_string(expect));
              expect = c.offset + c.size;
              check_object(cvmfs::ObjectPath(c.hash, cvmfs::ObjectSuffix::kPartial), c.hash, path,
                           compressed);
            }
            if (expect != e.size)
              report.problems.push_back("chunks of " + path + " cover " + std::to_string(expect) +
                                        " of " + std::to_string(e.size) + " bytes");
          } else if (e.content_hash) {
            check_object(cvmfs::ObjectPath(*e.content_hash, cvmfs::ObjectSuffix::kNone),
                         *e.content_hash, path, compressed);
          } else {
            report.problems.push_back("regular file without content hash: " + path);
          }
          return Status::Ok();
        });
  });
  if (!st.ok()) report.problems.push_back(st.ToString());
  return report;
}

}  // namespace publisher
