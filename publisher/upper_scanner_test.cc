// The upper layer as overlayfs writes it, built by hand. Without root the
// "user.overlay." xattrs (overlayfs's `userxattr` mode) and ".wh." names
// stand in for the trusted.* xattrs and 0/0 devices; with root both
// representations are checked.
#include "publisher/upper_scanner.h"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <unistd.h>

#include <map>

#include "cvmfs/file_util.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::testing::TempDir;
using Kind = UpperEntry::Kind;

void Write(const std::string& path, const std::string& data) {
  ASSERT_TRUE(cvmfs::WriteFileAtomic(path, data).ok()) << path;
}

bool SetXattr(const std::string& path, const std::string& name,
              const std::string& value) {
  return ::lsetxattr(path.c_str(), name.c_str(), value.data(), value.size(),
                     0) == 0;
}

std::vector<UpperEntry> Scan(const std::string& dir,
                             UpperScanOptions options = {}) {
  std::vector<UpperEntry> out;
  cvmfs::Status st = ScanUpperLayer(dir, options, [&](const UpperEntry& e) {
    out.push_back(e);
    return cvmfs::Status::Ok();
  });
  EXPECT_TRUE(st.ok()) << st.ToString();
  return out;
}

TEST(UpperScannerTest, VisitsChangesDirectoryFirstWhiteoutsBeforeEntries) {
  TempDir upper;
  ASSERT_TRUE(cvmfs::MakeDirs(upper.Sub("a/b")).ok());
  Write(upper.Sub("a/b/new.txt"), "new");
  Write(upper.Sub("a/.wh.gone"), "");
  Write(upper.Sub("z"), "z");
  ASSERT_EQ(::symlink("target", upper.Sub("a/link").c_str()), 0);
  ASSERT_EQ(::mkfifo(upper.Sub("fifo").c_str(), 0644), 0);

  auto entries = Scan(upper.path());
  std::vector<std::pair<Kind, std::string>> got;
  for (auto& e : entries) got.emplace_back(e.kind, e.path);
  std::vector<std::pair<Kind, std::string>> want = {
      {Kind::kDirectory, ""},           {Kind::kDirectory, "/a"},
      {Kind::kWhiteout, "/a/gone"},     {Kind::kDirectory, "/a/b"},
      {Kind::kRegular, "/a/b/new.txt"}, {Kind::kSymlink, "/a/link"},
      {Kind::kSpecial, "/fifo"},        {Kind::kRegular, "/z"}};
  EXPECT_EQ(got, want);
  EXPECT_EQ(entries[5].symlink, "target");
  EXPECT_EQ(entries[4].st.st_size, 3);
}

TEST(UpperScannerTest, OpaqueDirectoriesByMarkerOrXattr) {
  TempDir upper;
  ASSERT_TRUE(cvmfs::MakeDirs(upper.Sub("by_marker")).ok());
  Write(upper.Sub("by_marker/.wh..wh..opq"), "");
  ASSERT_TRUE(cvmfs::MakeDirs(upper.Sub("by_xattr")).ok());
  ASSERT_TRUE(cvmfs::MakeDirs(upper.Sub("plain")).ok());
  UpperScanOptions options;
  options.overlay_xattr_prefix = "user.overlay.";
  if (!SetXattr(upper.Sub("by_xattr"), "user.overlay.opaque", "y"))
    GTEST_SKIP() << "no user xattrs on " << upper.path();
  // "x" (kernel 6.7+) means "may hold xwhiteouts", not opaque.
  ASSERT_TRUE(SetXattr(upper.Sub("plain"), "user.overlay.opaque", "x"));
  std::map<std::string, bool> opaque;
  for (auto& e : Scan(upper.path(), options)) opaque[e.path] = e.opaque;
  EXPECT_TRUE(opaque["/by_marker"]);
  EXPECT_TRUE(opaque["/by_xattr"]);
  EXPECT_FALSE(opaque["/plain"]);
  EXPECT_EQ(opaque.count("/by_marker/.wh..wh..opq"), 0u);
}

TEST(UpperScannerTest, CharacterDeviceZeroZeroIsAWhiteout) {
  TempDir upper;
  if (::mknod(upper.Sub("deleted").c_str(), S_IFCHR | 0, makedev(0, 0)) != 0)
    GTEST_SKIP() << "mknod needs CAP_MKNOD";
  ASSERT_EQ(::mknod(upper.Sub("tty").c_str(), S_IFCHR | 0600, makedev(4, 1)),
            0);
  auto entries = Scan(upper.path());
  ASSERT_EQ(entries.size(), 3u);
  EXPECT_EQ(entries[1].kind, Kind::kWhiteout);
  EXPECT_EQ(entries[1].path, "/deleted");
  EXPECT_EQ(entries[2].kind, Kind::kSpecial);
  EXPECT_EQ(entries[2].path, "/tty");
}

TEST(UpperScannerTest, KeepsUserXattrsButNotMagicOrOverlayOnes) {
  TempDir upper;
  Write(upper.Sub("f"), "x");
  if (!SetXattr(upper.Sub("f"), "user.mine", "value"))
    GTEST_SKIP() << "no user xattrs";
  ASSERT_TRUE(
      SetXattr(upper.Sub("f"), "user.hash", "copied-up-from-the-client"));
  ASSERT_TRUE(SetXattr(upper.Sub("f"), "user.overlay.origin", "x"));
  auto entries = Scan(upper.path());
  ASSERT_EQ(entries.size(), 2u);
  std::vector<std::pair<std::string, std::string>> want = {
      {"user.mine", "value"}};
  EXPECT_EQ(entries[1].xattrs, want);
  UpperScanOptions no_xattrs;
  no_xattrs.include_xattrs = false;
  EXPECT_TRUE(Scan(upper.path(), no_xattrs)[1].xattrs.empty());
}

TEST(UpperScannerTest, RedirectedDirectoryIsRefused) {
  TempDir upper;
  ASSERT_TRUE(cvmfs::MakeDirs(upper.Sub("moved")).ok());
  if (!SetXattr(upper.Sub("moved"), "user.overlay.redirect", "/old"))
    GTEST_SKIP();
  UpperScanOptions options;
  options.overlay_xattr_prefix = "user.overlay.";
  cvmfs::Status st =
      ScanUpperLayer(upper.path(), options,
                     [](const UpperEntry&) { return cvmfs::Status::Ok(); });
  EXPECT_EQ(st.code(), cvmfs::Status::Code::kNotSupported);
  EXPECT_NE(st.message().find("/moved"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace publisher
