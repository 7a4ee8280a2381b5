// Fuzz target: the bundle reader (bundle.h), which parses objects fetched
// from a server. Whatever the bytes, the reader must hand over exactly the
// member bytes its header announced, in order, and never more.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "cvmfs/bundle.h"

namespace {

void Check(bool ok, const char* what) {
  if (ok) return;
  fprintf(stderr, "property violated: %s\n", what);
  abort();
}

class Counter : public cvmfs::BundleReader::Visitor {
 public:
  cvmfs::Status BeginMember(const cvmfs::BundleMember& m) override {
    Check(!open_, "BeginMember while a member is open");
    open_ = true;
    left_ = m.size;
    ++begun;
    return cvmfs::Status::Ok();
  }
  cvmfs::Status MemberData(const void*, size_t n) override {
    Check(open_ && n <= left_, "MemberData within the announced size");
    left_ -= n;
    bytes += n;
    return cvmfs::Status::Ok();
  }
  cvmfs::Status EndMember() override {
    Check(open_ && left_ == 0, "EndMember after the announced bytes");
    open_ = false;
    ++ended;
    return cvmfs::Status::Ok();
  }
  size_t begun = 0, ended = 0;
  uint64_t bytes = 0;

 private:
  bool open_ = false;
  uint64_t left_ = 0;
};

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  Counter counter;
  cvmfs::BundleReader reader(cvmfs::HashAlgorithm::kSha1, &counter);
  // Two pieces, split where the first byte says, to exercise the stream.
  size_t split = size > 0 ? data[0] % (size + 1) : 0;
  cvmfs::Status s = reader.Feed(data, split);
  if (s.ok()) s = reader.Feed(data + split, size - split);
  if (s.ok()) s = reader.Finish();
  if (s.ok()) {
    uint64_t announced = 0;
    for (const cvmfs::BundleMember& m : reader.members()) announced += m.size;
    Check(counter.ended == reader.members().size(), "every member ended");
    Check(counter.bytes == announced, "every announced byte handed over");
    std::string header = cvmfs::SerializeBundleHeader(reader.members());
    Check(header.size() + announced == size, "header + members == bundle");
    Check(std::string(reinterpret_cast<const char*>(data), header.size()) ==
              header,
          "SerializeBundleHeader(members) is the bundle's header");
  }
  return 0;
}
