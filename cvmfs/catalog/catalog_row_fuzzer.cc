// Fuzz target: the decoding of catalog rows (catalog.h, dirent.h,
// xattr_blob.h, hash.h). A valid catalog is made once; each input becomes
// one row of it (flags, mode, sizes, the hash and xattr BLOBs, name and
// symlink as raw bytes) plus chunk rows with fuzzed hashes, written with
// plain SQL, and is read back through Catalog: lookup, listing, chunks.
// The same bytes also go to the pure decoders (ParseXattrs, Digest::Parse,
// FromRaw, FromHex, DecodeFlags), with round-trip checks where the format
// promises one.
#include <fuzzer/FuzzedDataProvider.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cvmfs/catalog/catalog.h"
#include "cvmfs/catalog/dirent.h"
#include "cvmfs/catalog/writable_catalog.h"
#include "cvmfs/catalog/xattr_blob.h"
#include "cvmfs/file_util.h"
#include "cvmfs/hash.h"
#include "cvmfs/path_hash.h"
#include "cvmfs/sqlite_db.h"
#include "testing/test_env.h"

namespace {

constexpr char kPath[] = "/dir/entry";

void Check(bool ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "property violated: %s\n", what);
  abort();
}

// The bytes of a committed catalog holding the root and "/dir".
const std::string& TemplateCatalog() {
  static const std::string* bytes = [] {
    cvmfs::testing::TempDir tmp;
    cvmfs::DirectoryEntry root;
    root.mode = S_IFDIR | 0755;
    root.size = 4096;
    auto w = cvmfs::WritableCatalog::Create(tmp.Sub("c.db"), "", root, false);
    if (!w.ok()) abort();
    cvmfs::DirectoryEntry dir = root;
    dir.name = "dir";
    if (!(*w)->AddEntry("/dir", dir).ok()) abort();
    if (!(*w)->Commit(1, 1, std::nullopt, std::nullopt).ok()) abort();
    w->reset();
    auto content = cvmfs::ReadFile(tmp.Sub("c.db"));
    if (!content.ok()) abort();
    return new std::string(std::move(content).value());
  }();
  return *bytes;
}

void FuzzDecoders(const std::string& blob) {
  auto xattrs = cvmfs::ParseXattrs(blob);
  if (xattrs.ok() && !xattrs->empty()) {
    // Serialize writes the entries sorted by key; Parse keeps blob order.
    auto again = cvmfs::SerializeXattrs(*xattrs);
    if (again.ok()) {
      auto reparsed = cvmfs::ParseXattrs(*again);
      cvmfs::XattrList sorted = *xattrs;
      std::sort(sorted.entries.begin(), sorted.entries.end());
      Check(reparsed.ok() && *reparsed == sorted, "xattr round trip");
    }
  }
  auto digest = cvmfs::Digest::Parse(blob);
  if (digest.ok()) {
    auto again = cvmfs::Digest::Parse(digest->ToString());
    Check(again.ok() && *again == *digest, "digest text round trip");
  }
  for (auto algo : {cvmfs::HashAlgorithm::kSha1, cvmfs::HashAlgorithm::kMd5,
                    cvmfs::HashAlgorithm::kShake128}) {
    auto raw = cvmfs::Digest::FromRaw(algo, blob);
    if (raw.ok()) Check(raw->Raw() == blob, "digest raw round trip");
  }
  auto hex = cvmfs::FromHex(blob);
  if (hex.ok())
    Check(cvmfs::ToHex(hex->data(), hex->size()).size() == blob.size(),
          "hex round trip");
}

cvmfs::Status InsertRow(cvmfs::SqliteDb* db, FuzzedDataProvider* in,
                        const std::string& name) {
  cvmfs::PathHash key = cvmfs::HashPath(kPath);
  cvmfs::PathHash parent = cvmfs::HashPath("/dir");
  CVMFS_ASSIGN_OR_RETURN(
      cvmfs::SqliteStatement row,
      db->Prepare("INSERT INTO catalog (md5path_1, md5path_2, parent_1, "
                  "parent_2, hash, hardlinks, size, mode, mtime, mtimens, "
                  "flags, name, symlink, uid, gid, xattr) VALUES (?1, ?2, "
                  "?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, "
                  "?16);"));
  row.BindInt64(1, key.md5_1).BindInt64(2, key.md5_2);
  row.BindInt64(3, parent.md5_1).BindInt64(4, parent.md5_2);
  row.BindBlob(5, in->ConsumeRandomLengthString(32));
  row.BindInt64(6, in->ConsumeIntegral<int64_t>());
  row.BindInt64(7, in->ConsumeIntegral<int64_t>());
  row.BindInt64(8, in->ConsumeIntegral<int64_t>());
  row.BindInt64(9, in->ConsumeIntegral<int64_t>());
  if (in->ConsumeBool()) {
    row.BindNull(10);
  } else {
    row.BindInt64(10, in->ConsumeIntegral<int64_t>());
  }
  row.BindInt64(11, in->ConsumeIntegral<int64_t>());
  row.BindText(12, name);
  row.BindText(13, in->ConsumeRandomLengthString(300));
  row.BindInt64(14, in->ConsumeIntegral<int64_t>());
  row.BindInt64(15, in->ConsumeIntegral<int64_t>());
  row.BindBlob(16, in->ConsumeRandomLengthString(600));
  CVMFS_RETURN_IF_ERROR(row.Run());
  int chunks = in->ConsumeIntegralInRange(0, 4);
  for (int i = 0; i < chunks; ++i) {
    CVMFS_ASSIGN_OR_RETURN(
        cvmfs::SqliteStatement chunk,
        db->Prepare("INSERT INTO chunks (md5path_1, md5path_2, offset, size, "
                    "hash) VALUES (?1, ?2, ?3, ?4, ?5);"));
    chunk.BindInt64(1, key.md5_1).BindInt64(2, key.md5_2);
    chunk.BindInt64(3, in->ConsumeIntegral<int64_t>());
    chunk.BindInt64(4, in->ConsumeIntegral<int64_t>());
    chunk.BindBlob(5, in->ConsumeRandomLengthString(32));
    CVMFS_RETURN_IF_ERROR(chunk.Run());
  }
  return cvmfs::Status::Ok();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  FuzzedDataProvider in(data, size);
  const std::string blob = in.ConsumeRandomLengthString(600);
  FuzzDecoders(blob);
  cvmfs::DirectoryEntry decoded;
  cvmfs::DecodeFlags(in.ConsumeIntegral<uint32_t>(), &decoded);

  cvmfs::testing::TempDir tmp;
  const std::string file = tmp.Sub("catalog.db");
  if (!cvmfs::WriteFileAtomic(file, TemplateCatalog()).ok()) abort();
  {
    auto db =
        cvmfs::SqliteDb::Open(file, cvmfs::SqliteDb::OpenMode::kReadWrite);
    if (!db.ok()) abort();
    // A scratch copy: no journal, no fsync.
    if (!(*db)->Exec("PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF;").ok())
      abort();
    if (!InsertRow(db->get(), &in, "entry").ok()) return 0;
  }
  auto catalog = cvmfs::Catalog::Open(file);
  if (!catalog.ok()) abort();  // the template itself is valid
  auto entry = (*catalog)->Lookup(kPath);
  auto listing = (*catalog)->List("/dir");
  Check(entry.ok() == listing.ok(), "lookup and listing decode alike");
  (void)(*catalog)->Chunks(kPath);
  (void)(*catalog)->ReadCounters();
  (void)(*catalog)->Walk([](const std::string&, const cvmfs::DirectoryEntry&) {
    return cvmfs::Status::Ok();
  });
  return 0;
}
