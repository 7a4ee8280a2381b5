// OrderedRegistration with a real pipeline: files whose contents are held
// back by a gate are registered in the order they were added, never before
// the files added earlier, and at most `max_pending` wait.
#include "publisher/ordered_registration.h"

#include <gtest/gtest.h>

#include <condition_variable>
#include <iterator>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include "cvmfs/object_store.h"

namespace publisher {
namespace {

// Holds back the readers of the sources it guards until opened.
class Gate {
 public:
  void Open() {
    std::lock_guard<std::mutex> l(mu_);
    open_ = true;
    cv_.notify_all();
  }
  void Pass() {
    std::unique_lock<std::mutex> l(mu_);
    cv_.wait(l, [this] { return open_; });
  }

 private:
  std::mutex mu_;
  std::condition_variable cv_;
  bool open_ = false;
};

// `data`, read by a pipeline worker once `gate` (if any) is open.
class GatedSource : public ByteSource {
 public:
  GatedSource(const std::string& data, Gate* gate) : in_(data), gate_(gate) {}
  cvmfs::Result<size_t> Read(void* buf, size_t size) override {
    if (gate_) gate_->Pass();
    in_.read(static_cast<char*>(buf), static_cast<std::streamsize>(size));
    return static_cast<size_t>(in_.gcount());
  }

 private:
  std::istringstream in_;
  Gate* gate_;
};

class OrderedRegistrationTest : public ::testing::Test {
 protected:
  OrderedRegistrationTest() : pipeline_(&store_, Options()) {}
  // Lets the workers finish before the pipeline joins them.
  ~OrderedRegistrationTest() override {
    for (Gate& g : gates_) g.Open();
  }

  static IngestOptions Options() {
    IngestOptions o;
    o.workers = 2;
    return o;
  }

  PendingRegistration File(const std::string& path, Gate* gate = nullptr) {
    const std::string data = "content of " + path;
    return PendingRegistration{
        path, cvmfs::DirectoryEntry{},
        pipeline_.SubmitOwned(std::make_unique<GatedSource>(data, gate),
                              data.size())};
  }

  OrderedRegistration::RegisterFn Recorder() {
    return [this](const PendingRegistration& f) {
      f.content->Wait();  // as PutIngestedFile does
      registered_.push_back(f.path);
      return f.content->status();
    };
  }

  Gate gates_[8];  // outlive the pipeline's workers
  cvmfs::MemoryObjectStore store_;
  IngestPipeline pipeline_;
  std::vector<std::string> registered_;
};

TEST_F(OrderedRegistrationTest, AFileWaitsForTheFilesAddedBeforeIt) {
  OrderedRegistration queue(100, Recorder());
  ASSERT_TRUE(queue.Add(File("/slow", &gates_[0])).ok());
  for (int i = 0; i < 5; ++i) {
    PendingRegistration fast = File("/fast" + std::to_string(i));
    fast.content->Wait();  // stored while /slow is not
    ASSERT_TRUE(queue.Add(std::move(fast)).ok());
  }
  ASSERT_TRUE(queue.FlushReady().ok());
  EXPECT_TRUE(registered_.empty()) << "registered before /slow";
  EXPECT_EQ(6u, queue.pending());
  gates_[0].Open();
  ASSERT_TRUE(queue.FlushAll().ok());
  EXPECT_EQ(0u, queue.pending());
  EXPECT_EQ((std::vector<std::string>{"/slow", "/fast0", "/fast1", "/fast2",
                                      "/fast3", "/fast4"}),
            registered_);
}

TEST_F(OrderedRegistrationTest, AtMostMaxPendingFilesWait) {
  OrderedRegistration queue(3, Recorder());
  const size_t n = std::size(gates_);
  for (size_t i = 0; i < n; ++i) {
    // A file's content is held back until the file three places later is
    // added: that Add must wait for it (the workers take files in order).
    if (i >= 3) gates_[i - 3].Open();
    ASSERT_TRUE(queue.Add(File("/f" + std::to_string(i), &gates_[i])).ok());
    EXPECT_LE(queue.pending(), 3u);
    EXPECT_EQ(i >= 3 ? i - 2 : 0, registered_.size());
  }
  for (Gate& g : gates_) g.Open();
  ASSERT_TRUE(queue.FlushAll().ok());
  ASSERT_EQ(n, registered_.size());
  for (size_t i = 0; i < n; ++i)
    EXPECT_EQ("/f" + std::to_string(i), registered_[i]);
}

TEST_F(OrderedRegistrationTest, TheFirstErrorStopsTheRegistration) {
  OrderedRegistration queue(
      100, [this](const PendingRegistration& f) -> cvmfs::Status {
        registered_.push_back(f.path);
        if (f.path == "/bad") return cvmfs::Status::IoError("bad " + f.path);
        return cvmfs::Status::Ok();
      });
  // Held back: nothing is registered before FlushAll.
  ASSERT_TRUE(queue.Add(File("/a", &gates_[0])).ok());
  ASSERT_TRUE(queue.Add(File("/bad")).ok());
  ASSERT_TRUE(queue.Add(File("/c")).ok());
  gates_[0].Open();
  cvmfs::Status st = queue.FlushAll();
  EXPECT_EQ(cvmfs::Status::Code::kIoError, st.code());
  EXPECT_EQ((std::vector<std::string>{"/a", "/bad"}), registered_);
}

}  // namespace
}  // namespace publisher
