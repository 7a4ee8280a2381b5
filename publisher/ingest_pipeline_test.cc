// SubmitOwned (sources read on the workers) against Submit (read on the
// caller's thread): same objects, same hashes, errors reported per file.
#include "publisher/ingest_pipeline.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <thread>

#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"

namespace publisher {
namespace {

// Bytes from a string, in reads of at most `step` bytes; remembers the
// thread that read it.
class StringSource : public ByteSource {
 public:
  StringSource(std::string data, size_t step = 1 << 20)
      : data_(std::move(data)), step_(step) {}
  cvmfs::Result<size_t> Read(void* buf, size_t size) override {
    reader_ = std::this_thread::get_id();
    size_t n = std::min({size, step_, data_.size() - pos_});
    std::memcpy(buf, data_.data() + pos_, n);
    pos_ += n;
    return n;
  }
  std::thread::id reader() const { return reader_; }

 private:
  std::string data_;
  size_t step_;
  size_t pos_ = 0;
  std::thread::id reader_;
};

std::string RandomBytes(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::string s(n, '\0');
  for (char& c : s) c = static_cast<char>(rng());
  return s;
}

IngestOptions SmallChunks() {
  IngestOptions o;
  o.workers = 3;
  o.chunking.min_size = 16 << 10;
  o.chunking.avg_size = 32 << 10;
  o.chunking.max_size = 64 << 10;
  return o;
}

TEST(IngestPipelineTest, OwnedSourcesGiveTheSameObjectsAsSubmit) {
  // Empty, small, in between, and chunked (read on the caller's thread).
  const std::vector<std::string> files = {"", "x", RandomBytes(5000, 1),
                                          RandomBytes(15000, 2),
                                          RandomBytes(300000, 3)};
  cvmfs::MemoryObjectStore a, b;
  std::vector<std::shared_ptr<PendingFile>> plain, owned;
  {
    IngestPipeline pa(&a, SmallChunks()), pb(&b, SmallChunks());
    for (size_t i = 0; i < files.size(); ++i) {
      StringSource source(files[i], 777);
      plain.push_back(pa.Submit(&source, files[i].size()));
      owned.push_back(pb.SubmitOwned(
          std::make_unique<StringSource>(files[i], 777), files[i].size()));
    }
    pa.Drain();
    pb.Drain();
    EXPECT_EQ(pb.stats().files.load(), files.size());
    EXPECT_EQ(pb.stats().bytes_in.load(), pa.stats().bytes_in.load());
  }
  for (size_t i = 0; i < files.size(); ++i) {
    owned[i]->Wait();
    ASSERT_TRUE(owned[i]->status().ok())
        << i << ": " << owned[i]->status().ToString();
    EXPECT_EQ(owned[i]->size(), files[i].size());
    EXPECT_EQ(owned[i]->chunked(), plain[i]->chunked()) << i;
    ASSERT_EQ(owned[i]->chunks().size(), plain[i]->chunks().size()) << i;
    for (size_t c = 0; c < owned[i]->chunks().size(); ++c)
      EXPECT_EQ(owned[i]->chunks()[c].hash, plain[i]->chunks()[c].hash)
          << i << "/" << c;
  }
  EXPECT_TRUE(plain.back()->chunked());
  EXPECT_EQ(a.puts(), b.puts());
}

// Both ways of submitting count each file and its bytes for the progress
// line, the chunked one included.
TEST(IngestPipelineTest, ProgressCountsFilesAndBytes) {
  cvmfs::MemoryObjectStore store;
  cvmfs::ProgressCounters progress("files");
  IngestOptions o = SmallChunks();
  o.progress = &progress;
  {
    IngestPipeline pipeline(&store, o);
    StringSource chunked(RandomBytes(300000, 4), 777);
    pipeline.Submit(&chunked, 300000);
    pipeline.SubmitOwned(std::make_unique<StringSource>("abc"), 3);
    pipeline.Drain();
  }
  EXPECT_EQ(progress.Read().done, 2u);
  EXPECT_EQ(progress.Read().bytes, 300003u);
}

// Records, outside itself, which thread read it (the pipeline destroys it).
class WitnessSource : public StringSource {
 public:
  WitnessSource(std::string data, std::thread::id* reader)
      : StringSource(std::move(data)), reader_out_(reader) {}
  ~WitnessSource() override { *reader_out_ = reader(); }

 private:
  std::thread::id* reader_out_;
};

TEST(IngestPipelineTest, OwnedSmallFileIsReadByAWorker) {
  cvmfs::MemoryObjectStore store;
  std::thread::id reader;
  {
    IngestPipeline pipeline(&store, IngestOptions{});
    auto file = pipeline.SubmitOwned(
        std::make_unique<WitnessSource>("read elsewhere", &reader), 14);
    file->Wait();
    ASSERT_TRUE(file->status().ok()) << file->status().ToString();
  }
  EXPECT_NE(reader, std::thread::id());
  EXPECT_NE(reader, std::this_thread::get_id());
}

TEST(IngestPipelineTest, OwnedFileOfAnotherSizeFailsOnlyItself) {
  cvmfs::MemoryObjectStore store;
  IngestPipeline pipeline(&store, IngestOptions{});
  auto shorter =
      pipeline.SubmitOwned(std::make_unique<StringSource>("abc"), 10);
  auto longer =
      pipeline.SubmitOwned(std::make_unique<StringSource>("abcdefgh"), 4);
  auto fine = pipeline.SubmitOwned(std::make_unique<StringSource>("fine"), 4);
  for (auto* f : {shorter.get(), longer.get(), fine.get()}) f->Wait();
  EXPECT_EQ(shorter->status().code(), cvmfs::Status::Code::kIoError)
      << shorter->status().ToString();
  EXPECT_NE(shorter->status().message().find("3 bytes read, 10 expected"),
            std::string::npos)
      << shorter->status().ToString();
  EXPECT_EQ(longer->status().code(), cvmfs::Status::Code::kIoError)
      << longer->status().ToString();
  EXPECT_NE(longer->status().message().find("grew"), std::string::npos);
  EXPECT_TRUE(fine->status().ok()) << fine->status().ToString();
  pipeline.Drain();
  EXPECT_EQ(store.puts(), 1u);
}

// A large file that does not compress is stored as its own bytes, every
// chunk of it, and says so; one that compresses (or is small) is zlib. Both
// ways of submitting decide alike.
TEST(IngestPipelineTest, IncompressibleLargeFilesAreStoredUncompressed) {
  IngestOptions o;
  o.workers = 2;
  o.chunking.min_size = 1 << 20;
  o.chunking.avg_size = 2 << 20;
  o.chunking.max_size = 4 << 20;
  std::string text;
  for (int i = 0; text.size() < (9u << 20); ++i)
    text += "row " + std::to_string(i) + " of a table\n";
  text.resize(9u << 20);
  const std::vector<std::string> files = {
      RandomBytes(12 << 20, 7),   // chunked, random
      RandomBytes(900 << 10, 8),  // bulk, random but under a MiB
      text,                       // chunked, compressible
  };
  for (bool owned : {false, true}) {
    cvmfs::MemoryObjectStore store;
    std::vector<std::shared_ptr<PendingFile>> pending;
    IngestPipeline pipeline(&store, o);
    for (const std::string& f : files) {
      pending.push_back(owned ? pipeline.SubmitOwned(
                                    std::make_unique<StringSource>(f), f.size())
                              : [&] {
                                  StringSource source(f);
                                  return pipeline.Submit(&source, f.size());
                                }());
    }
    pipeline.Drain();
    EXPECT_EQ(1u, pipeline.stats().files_incompressible.load());
    const cvmfs::Compression want[] = {cvmfs::Compression::kNone,
                                       cvmfs::Compression::kZlib,
                                       cvmfs::Compression::kZlib};
    for (size_t i = 0; i < files.size(); ++i) {
      PendingFile& p = *pending[i];
      p.Wait();
      ASSERT_TRUE(p.status().ok()) << p.status().ToString();
      EXPECT_EQ(want[i], p.compression()) << i << (owned ? " owned" : "");
      std::string joined;
      for (const cvmfs::FileChunk& c : p.chunks()) {
        const cvmfs::ObjectSuffix suffix = p.chunked()
                                               ? cvmfs::ObjectSuffix::kPartial
                                               : cvmfs::ObjectSuffix::kNone;
        auto object = cvmfs::ReadVerifiedObject(
            &store, c.hash, suffix,
            p.compression() == cvmfs::Compression::kZlib);
        ASSERT_TRUE(object.ok()) << object.status().ToString();
        if (p.compression() == cvmfs::Compression::kNone) {
          auto raw = store.Get(cvmfs::ObjectPath(c.hash, suffix));
          ASSERT_TRUE(raw.ok());
          EXPECT_EQ(*object, *raw);
        }
        joined += *object;
      }
      EXPECT_EQ(files[i], joined) << i;
      EXPECT_EQ(i != 1, p.chunked()) << i;
    }
  }
}

}  // namespace
}  // namespace publisher
