// FixtureMountTest: a RepositoryMount of a fixture repository (published
// by CVMFS 2.12, ../shared/fixtures) served from memory, for the client's
// file-system tests (file_system_test.cc, file_system_prefetch_test.cc).
// Test-only; each including file instantiates its own suite (gtest allows
// one instantiation of a fixture class per binary).
#ifndef CLIENT_FIXTURE_MOUNT_TEST_H_
#define CLIENT_FIXTURE_MOUNT_TEST_H_

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cctype>
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "client/file_system.h"
#include "client/magic_xattrs.h"
#include "client/open_file.h"
#include "client/repository_mount.h"
#include "cvmfs/file_util.h"
#include "testing/memory_fetcher.h"
#include "testing/repository_listing.h"
#include "testing/test_env.h"

namespace cvmfs::client::fixture_test {

using testing::ListingLine;

// Loads every file a fixture's Stratum 0 serves into a MemoryFetcher.
inline void LoadTree(const std::string& root, const std::string& rel,
                     MemoryFetcher* fetcher) {
  auto names = ListDirectory(root + rel);
  ASSERT_TRUE(names.ok()) << names.status().ToString();
  for (const std::string& name : *names) {
    std::string path = rel.empty() ? name : rel + "/" + name;
    struct stat st;
    ASSERT_EQ(0, ::stat((root + path).c_str(), &st));
    if (S_ISDIR(st.st_mode)) {
      LoadTree(root, path, fetcher);
    } else {
      auto bytes = ReadFile(root + path);
      ASSERT_TRUE(bytes.ok());
      fetcher->Put(path, *bytes);
    }
  }
}

// How long the waits below give background work before calling it stuck:
// far more than it needs, and more under a sanitizer, which slows threads
// down 5-15 times (a prefetch of the whole fixture took over 10 s under
// ThreadSanitizer on a loaded machine).
inline constexpr std::chrono::seconds kStuckAfter{testing::kSanitized ? 60
                                                                      : 10};

// Waits until the prefetch work the file system's events so far started is
// done: its plans made (prefetch_triggers.h), the objects they queued
// fetched or left over the budget. False if the engine is still busy
// after kStuckAfter.
inline bool PrefetchSettled(FileSystem* fs) {
  fs->prefetch_triggers()->WaitIdle();
  return fs->prefetcher()->WaitIdle(kStuckAfter);
}

// Polls `done` until it holds, for at most kStuckAfter: for the progress of
// the test's own threads, which signal nothing.
inline bool Eventually(const std::function<bool()>& done) {
  const auto deadline = std::chrono::steady_clock::now() + kStuckAfter;
  while (!done()) {
    if (std::chrono::steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return true;
}

class FixtureMountTest : public ::testing::TestWithParam<std::string> {
 protected:
  std::string fqrn() const { return GetParam(); }
  std::string fixture() const { return testing::FixturesDir() + "/" + fqrn(); }

  std::unique_ptr<MemoryFetcher> Server() {
    auto fetcher = std::make_unique<MemoryFetcher>();
    LoadTree(fixture() + "/srv/cvmfs/" + fqrn() + "/", "", fetcher.get());
    return fetcher;
  }

  MountConfig Config() {
    MountConfig c;
    c.fqrn = fqrn();
    c.cache.dir = tmp_.Sub("cache");
    c.cache.quota_limit = 256 << 20;
    c.public_key_files = {fixture() + "/" + fqrn() + ".pub"};
    c.fs.fqrn = fqrn();
    c.fs.claim_ownership = false;
    c.fs.variables = [](const std::string& name) -> std::optional<std::string> {
      if (name == "CVMFS_ARCH") return std::string("x86_64");
      return std::nullopt;
    };
    // The in-memory server answers in microseconds: speculate anyway, as
    // over a real network (NoSpeculationWhileMissesAreCheap tests the gate).
    c.fs.prefetch.speculate_after = std::chrono::milliseconds(0);
    c.fs.prefetch.clock = prefetch_clock_;
    return c;
  }
  // Where the prefetch of Config() reads "now" (the prefetch tests stop it:
  // "a file was opened just now" then holds however slow the machine).
  const Clock* prefetch_clock_ = SteadyClock();
  // Prefetch off: for tests of what a demand read does with a fault that
  // the server injects once (a prefetch of the same object could take the
  // fault instead, and a prefetch's failure is never the reader's).
  MountConfig DemandOnlyConfig() {
    MountConfig c = Config();
    c.fs.prefetch.enabled = false;
    return c;
  }

  Result<std::unique_ptr<RepositoryMount>> Mount(
      std::unique_ptr<Fetcher> fetcher, MountConfig config) {
    return RepositoryMount::Create(
        std::move(config), [](const std::string&) {}, std::move(fetcher));
  }
  Result<std::unique_ptr<RepositoryMount>> Mount(
      std::unique_ptr<Fetcher> fetcher) {
    return Mount(std::move(fetcher), Config());
  }

  static Result<std::string> ReadAll(FileSystem* fs, uint64_t inode) {
    bool keep = false;
    CVMFS_ASSIGN_OR_RETURN(OpenFile * file, fs->Open(inode, &keep));
    std::string out;
    std::vector<char> buf(128 << 10);
    Status st;
    for (;;) {
      auto n = fs->Read(file, buf.data(), buf.size(),
                        static_cast<off_t>(out.size()));
      if (!n.ok()) {
        st = n.status();
        break;
      }
      if (*n == 0) break;
      out.append(buf.data(), *n);
    }
    fs->Release(file);
    if (!st.ok()) return st;
    return out;
  }

  // The listing as the fixtures' expected.tsv shows it, through the
  // FileSystem's operations only.
  void Walk(FileSystem* fs, uint64_t inode, const std::string& path,
            std::map<std::string, ListingLine>* out) {
    auto entries = fs->ReadDir(inode);
    ASSERT_TRUE(entries.ok()) << path << ": " << entries.status().ToString();
    for (const DirEntry& d : *entries) {
      if (d.name == "." || d.name == "..") continue;
      std::string child = path.empty() ? d.name : path + "/" + d.name;
      auto looked_up = fs->Lookup(inode, d.name);
      ASSERT_TRUE(looked_up.ok())
          << child << ": " << looked_up.status().ToString();
      ASSERT_EQ(looked_up->inode, d.inode)
          << child << ": readdir and lookup disagree";
      const struct stat& st = looked_up->attr;
      ASSERT_EQ(st.st_mode, d.attr.st_mode) << child;
      ListingLine line;
      char mode[16];
      std::snprintf(mode, sizeof(mode), "%o", st.st_mode & 07777);
      line.mode_octal = mode;
      line.mtime = std::to_string(st.st_mtime);
      line.linkcount = std::to_string(st.st_nlink);
      line.group = "-";
      line.content = "-";
      line.size = "0";
      if (S_ISDIR(st.st_mode)) {
        line.type = 'd';
        Walk(fs, looked_up->inode, child, out);
      } else if (S_ISLNK(st.st_mode)) {
        line.type = 'l';
        auto target = fs->ReadLink(looked_up->inode);
        ASSERT_TRUE(target.ok());
        line.content = *target;
        line.size = std::to_string(st.st_size);
      } else if (S_ISFIFO(st.st_mode)) {
        line.type = 'p';
      } else {
        line.type = 'f';
        line.size = std::to_string(st.st_size);
        auto content = ReadAll(fs, looked_up->inode);
        ASSERT_TRUE(content.ok())
            << child << ": " << content.status().ToString();
        line.content = testing::Sha256Hex(*content);
      }
      auto names = fs->ListXattr(looked_up->inode);
      ASSERT_TRUE(names.ok());
      std::map<std::string, std::string> catalog_xattrs;
      for (const std::string& n : *names) {
        if (MagicXattrs::IsMagic(n)) continue;  // not stored in the catalog
        auto v = fs->GetXattr(looked_up->inode, n);
        ASSERT_TRUE(v.ok()) << n;
        catalog_xattrs[n] = *v;
      }
      for (auto& [k, v] : catalog_xattrs)
        line.xattrs += (line.xattrs.empty() ? "" : ",") + k + "=" +
                       ToHex(v.data(), v.size());
      if (line.xattrs.empty()) line.xattrs = "-";
      (*out)[child] = line;
      fs->Forget(looked_up->inode, 1);
    }
  }

  void ExpectListing(FileSystem* fs, const std::string& expected_file) {
    auto expected = testing::ParseExpectedListing(expected_file);
    ASSERT_TRUE(expected.ok()) << expected.status().ToString();
    std::map<std::string, ListingLine> got;
    Walk(fs, kRootInode, "", &got);
    for (auto& [path, line] : *expected) {
      auto it = got.find(path);
      if (it == got.end()) {
        ADD_FAILURE() << "missing " << path;
        continue;
      }
      EXPECT_EQ(line.ToString(), it->second.ToString()) << path;
    }
    for (auto& [path, line] : got)
      EXPECT_TRUE(expected->count(path)) << "unexpected " << path;
  }

  testing::TempDir tmp_;
};

// The fixture repositories every suite runs against, with names gtest
// accepts.
inline auto FixtureNames() {
  return ::testing::Values("sha1-zlib.example.org",
                           "shake128-none.example.org");
}
inline std::string FixtureTestName(
    const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n)
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  return n;
}

}  // namespace cvmfs::client::fixture_test

#endif  // CLIENT_FIXTURE_MOUNT_TEST_H_
