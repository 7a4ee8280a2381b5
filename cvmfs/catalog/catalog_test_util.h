// Test helpers for the catalog component: locating the fixture repositories,
// reading their manifests and unpacking their catalog and history objects
// into temporary files. Header-only; used by cvmfs/catalog/*_test.cc only.
#ifndef CVMFS_CATALOG_CATALOG_TEST_UTIL_H_
#define CVMFS_CATALOG_CATALOG_TEST_UTIL_H_

#include <sys/stat.h>

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/compression.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/object_name.h"
#include "cvmfs/sqlite_db.h"
#include "cvmfs/status.h"
#include "testing/test_env.h"

namespace cvmfs::catalog_test {

inline const char* const kFixtureNames[] = {"sha1-zlib", "shake128-none"};

// srv/cvmfs/FQRN of a fixture ("sha1-zlib" -> .../sha1-zlib.example.org/...).
inline std::string FixtureRepo(const std::string& name) {
  std::string fqrn = name + ".example.org";
  return cvmfs::testing::FixturesDir() + "/" + fqrn + "/srv/cvmfs/" + fqrn;
}

// The key/value lines of the manifest before "--".
inline Result<std::map<char, std::string>> ReadManifest(
    const std::string& repo) {
  CVMFS_ASSIGN_OR_RETURN(std::string text, ReadFile(repo + "/.cvmfspublished"));
  std::map<char, std::string> fields;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) break;
    std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line == "--") break;
    if (!line.empty()) fields[line[0]] = line.substr(1);
  }
  return fields;
}

// Decompresses object `hash` with `suffix` of `repo` into `dest`.
inline Status UnpackObject(const std::string& repo, const Digest& hash,
                           ObjectSuffix suffix, const std::string& dest) {
  CVMFS_ASSIGN_OR_RETURN(std::string compressed,
                         ReadFile(repo + "/" + ObjectPath(hash, suffix)));
  std::string raw;
  CVMFS_RETURN_IF_ERROR(Decompress(compressed, &raw));
  return WriteFileAtomic(dest, raw);
}

// A catalog of a fixture unpacked into a file.
struct UnpackedCatalog {
  std::string mountpoint;  // "" for the root catalog
  Digest hash;
  std::string file;
};

// Rows of a table ("SELECT <columns> FROM <table> ORDER BY rowid") rendered
// as text, for comparing databases.
inline Result<std::vector<std::string>> DumpTable(const std::string& file,
                                                  const std::string& query) {
  CVMFS_ASSIGN_OR_RETURN(auto db,
                         SqliteDb::Open(file, SqliteDb::OpenMode::kReadOnly));
  CVMFS_ASSIGN_OR_RETURN(SqliteStatement stmt, db->Prepare(query));
  std::vector<std::string> rows;
  while (true) {
    CVMFS_ASSIGN_OR_RETURN(bool row, stmt.Step());
    if (!row) break;
    rows.push_back(stmt.ColumnIsNull(0) ? "<NULL>" : stmt.ColumnText(0));
  }
  return rows;
}

// Unpacks the root catalog and, following nested_catalogs rows, every
// nested catalog of the newest revision into `dir`, parents first.
inline Result<std::vector<UnpackedCatalog>> UnpackAllCatalogs(
    const std::string& name, const std::string& dir) {
  std::string repo = FixtureRepo(name);
  CVMFS_ASSIGN_OR_RETURN(auto manifest, ReadManifest(repo));
  CVMFS_ASSIGN_OR_RETURN(Digest root, Digest::Parse(manifest['C']));
  std::vector<UnpackedCatalog> out;
  std::vector<std::pair<std::string, Digest>> todo = {{"", root}};
  for (size_t i = 0; i < todo.size(); ++i) {
    std::string file = dir + "/catalog" + std::to_string(i) + ".db";
    CVMFS_RETURN_IF_ERROR(
        UnpackObject(repo, todo[i].second, ObjectSuffix::kCatalog, file));
    CVMFS_ASSIGN_OR_RETURN(auto catalog, Catalog::Open(file));
    CVMFS_ASSIGN_OR_RETURN(auto nested, catalog->NestedCatalogs());
    for (const auto& ref : nested) todo.emplace_back(ref.path, ref.hash);
    out.push_back({todo[i].first, todo[i].second, file});
  }
  return out;
}

// A directory entry as a publisher writes one (0755, 4096 bytes, 2 links).
inline DirectoryEntry DirEntry() {
  DirectoryEntry e;
  e.mode = S_IFDIR | 0755;
  e.size = 4096;
  e.mtime = 1700000000;
  e.linkcount = 2;
  return e;
}

}  // namespace cvmfs::catalog_test

#endif  // CVMFS_CATALOG_CATALOG_TEST_UTIL_H_
