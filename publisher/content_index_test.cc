#include "publisher/content_index.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>

#include "cvmfs/file_util.h"
#include "cvmfs/object_store.h"
#include "publisher/ingest_pipeline.h"
#include "testing/test_env.h"

namespace publisher {
namespace {

using cvmfs::Compression;
using cvmfs::HashAlgorithm;
using cvmfs::testing::TempDir;

class StringSource : public ByteSource {
 public:
  explicit StringSource(std::string data) : data_(std::move(data)) {}
  cvmfs::Result<size_t> Read(void* buf, size_t size) override {
    size_t n = std::min(size, data_.size() - pos_);
    std::memcpy(buf, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }

 private:
  std::string data_;
  size_t pos_ = 0;
};

cvmfs::Digest Publish(cvmfs::ObjectStore* store, ContentIndex* index,
                      const std::string& data,
                      IngestStats* stats_out = nullptr) {
  IngestOptions options;
  options.content_index = index;
  options.workers = 2;
  IngestPipeline pipeline(store, options);
  StringSource source(data);
  auto file = pipeline.Submit(&source, data.size());
  file->Wait();
  pipeline.Drain();
  EXPECT_TRUE(file->status().ok()) << file->status().ToString();
  if (stats_out) {
    stats_out->objects_stored = pipeline.stats().objects_stored.load();
    stats_out->objects_recognized = pipeline.stats().objects_recognized.load();
  }
  return file->bulk_hash();
}

TEST(ContentIndexTest, KeyCoversSizeCompressionAndAlgorithm) {
  auto a = ContentIndex::KeyOf("abc", Compression::kZlib, HashAlgorithm::kSha1);
  EXPECT_EQ(a.sha256.size(), 32u);
  EXPECT_EQ(a.size, 3u);
  auto b =
      ContentIndex::KeyOf("abc", Compression::kZlib, HashAlgorithm::kShake128);
  auto c = ContentIndex::KeyOf("abd", Compression::kZlib, HashAlgorithm::kSha1);
  EXPECT_TRUE(a < b || b < a);
  EXPECT_NE(a.sha256, c.sha256);
}

TEST(ContentIndexTest, EntriesSurviveReopening) {
  TempDir dir;
  const std::string path = dir.Sub("index.db");
  auto key =
      ContentIndex::KeyOf("content", Compression::kZlib, HashAlgorithm::kSha1);
  auto digest = cvmfs::HashString(HashAlgorithm::kSha1, "compressed");
  {
    auto index = ContentIndex::Open(path);
    ASSERT_TRUE(index.ok()) << index.status().ToString();
    EXPECT_FALSE((*index)->Lookup(key));
    (*index)->Add(key, digest);
    EXPECT_EQ((*index)->Lookup(key), digest);  // before the flush, too
    ASSERT_TRUE((*index)->Flush().ok());
  }
  auto index = ContentIndex::Open(path);
  ASSERT_TRUE(index.ok());
  EXPECT_EQ((*index)->Lookup(key), digest);
  auto other = ContentIndex::KeyOf("content", Compression::kZlib,
                                   HashAlgorithm::kShake128);
  EXPECT_FALSE((*index)->Lookup(other));
  EXPECT_EQ((*index)->lookup_errors(), 0u);
}

TEST(ContentIndexTest, DamagedFileIsReplacedByAnEmptyIndex) {
  TempDir dir;
  const std::string path = dir.Sub("index.db");
  ASSERT_TRUE(cvmfs::WriteFileAtomic(path, std::string(8192, 'x')).ok());
  auto index = ContentIndex::Open(path);
  ASSERT_TRUE(index.ok()) << index.status().ToString();
  auto key = ContentIndex::KeyOf("x", Compression::kZlib, HashAlgorithm::kSha1);
  EXPECT_FALSE((*index)->Lookup(key));
  (*index)->Add(key, cvmfs::HashString(HashAlgorithm::kSha1, "y"));
  EXPECT_TRUE((*index)->Flush().ok());
}

// The same bytes published again are recognized without compression; an
// object that disappeared from the store (gc) is stored again.
TEST(ContentIndexTest, PipelineReusesExistingObjectsOnly) {
  TempDir dir;
  auto index = ContentIndex::Open(dir.Sub("index.db"));
  ASSERT_TRUE(index.ok());
  cvmfs::MemoryObjectStore store;
  const std::string data(100000, 'q');
  IngestStats first, second, third;
  cvmfs::Digest d1 = Publish(&store, index->get(), data, &first);
  EXPECT_EQ(first.objects_stored.load(), 1u);
  EXPECT_EQ(first.objects_recognized.load(), 0u);
  const size_t puts = store.puts();

  cvmfs::Digest d2 = Publish(&store, index->get(), data, &second);
  EXPECT_EQ(d2, d1);
  EXPECT_EQ(second.objects_recognized.load(), 1u);
  EXPECT_EQ(second.objects_stored.load(), 0u);
  EXPECT_EQ(store.puts(), puts);

  ASSERT_TRUE(
      store.Remove(cvmfs::ObjectPath(d1, cvmfs::ObjectSuffix::kNone)).ok());
  cvmfs::Digest d3 = Publish(&store, index->get(), data, &third);
  EXPECT_EQ(d3, d1);
  EXPECT_EQ(third.objects_recognized.load(), 0u);
  EXPECT_EQ(third.objects_stored.load(), 1u);
  EXPECT_TRUE(store.Exists(cvmfs::ObjectPath(d1, cvmfs::ObjectSuffix::kNone)));
}

// Tiny pieces are compressed again rather than indexed: the index does not
// grow with a repository's many small files.
TEST(ContentIndexTest, PiecesBelowTheMinimumAreNotIndexed) {
  TempDir dir;
  auto index = ContentIndex::Open(dir.Sub("index.db"));
  ASSERT_TRUE(index.ok());
  cvmfs::MemoryObjectStore store;
  const std::string small(ContentIndex::kMinIndexedSize - 1, 's');
  IngestStats first, second;
  cvmfs::Digest d1 = Publish(&store, index->get(), small, &first);
  cvmfs::Digest d2 = Publish(&store, index->get(), small, &second);
  EXPECT_EQ(d1, d2);
  EXPECT_EQ(second.objects_recognized.load(), 0u);
  EXPECT_FALSE((*index)->Lookup(
      ContentIndex::KeyOf(small, Compression::kZlib, HashAlgorithm::kSha1)));
  const std::string big(ContentIndex::kMinIndexedSize, 'b');
  Publish(&store, index->get(), big);
  EXPECT_TRUE((*index)->Lookup(
      ContentIndex::KeyOf(big, Compression::kZlib, HashAlgorithm::kSha1)));
}

// Without an index (deleted, or unusable) the pipeline works as before.
TEST(ContentIndexTest, PipelineWithoutIndexStoresEverything) {
  cvmfs::MemoryObjectStore store;
  IngestStats stats;
  cvmfs::Digest d = Publish(&store, nullptr, "hello", &stats);
  EXPECT_EQ(stats.objects_stored.load(), 1u);
  EXPECT_TRUE(store.Exists(cvmfs::ObjectPath(d, cvmfs::ObjectSuffix::kNone)));
}

}  // namespace
}  // namespace publisher
