// Bundles of small objects (doc/format-bundles.md): the bundle object's
// format, which files of a directory go into which bundle, and the rows of
// the `bundles` catalog table.
//
//   publisher: PlanBundles(directory's files) ─► for each plan:
//              SerializeBundleHeader + the members' stored bytes ─► object
//              data/XX/<digest>B, row in `bundles`
//   client:    FindCoveringBundle(rows, name) ─► fetch ─► BundleReader
//              streams the members to a Visitor (which verifies each)
//
// Thread safety: free functions over values; a BundleReader is used by one
// thread at a time.
#ifndef CVMFS_BUNDLE_H_
#define CVMFS_BUNDLE_H_

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cvmfs/hash.h"
#include "cvmfs/status.h"

namespace cvmfs {

inline constexpr std::string_view kBundleMagic = "cvmfs-bundle";
inline constexpr int kBundleVersion = 1;
// A file's stored object is a member candidate up to this size.
inline constexpr uint64_t kBundleMemberMax = 128 * 1024;
// A bundle is closed before its members' bytes would exceed this.
inline constexpr uint64_t kBundleTargetBytes = 1024 * 1024;
inline constexpr size_t kBundleMaxMembers = 4096;
// What a reader accepts for one member (a bundle written by another
// publisher may use other limits than ours, up to these).
inline constexpr uint64_t kBundleMaxMemberSize = 16 * 1024 * 1024;
// A directory needs this many member candidates to get bundles.
inline constexpr size_t kBundleMinMembers = 2;

struct BundleMember {
  Digest digest;      // a whole-file data object (no suffix)
  uint64_t size = 0;  // bytes of its stored (compressed) object

  bool operator==(const BundleMember& o) const {
    return digest == o.digest && size == o.size;
  }
};

// A regular, unchunked, non-external file of one directory.
struct BundleCandidate {
  std::string name;  // within the directory
  Digest digest;
  uint64_t stored_size = 0;
};

struct BundlePlan {
  std::string first_name;  // the name of the first member's file
  std::vector<BundleMember> members;

  uint64_t member_bytes() const;
};

// The bundles of one directory (section 2 of the format): candidates over
// kBundleMemberMax or empty are left out, names sorted bytewise, a digest
// taken once; none if fewer than kBundleMinMembers remain.
std::vector<BundlePlan> PlanBundles(std::vector<BundleCandidate> candidates);

// "cvmfs-bundle 1\n<n>\n<digest> <size>\n...\n\n". The bundle's bytes are
// this followed by the members' stored bytes in the same order.
std::string SerializeBundleHeader(const std::vector<BundleMember>& members);

// A row of the `bundles` catalog table.
struct BundleRef {
  std::string path;        // the directory: "" (root) or "/a/b"
  std::string first_name;  // see PlanBundles
  Digest hash;             // of the bundle's bytes
  uint64_t size = 0;       // bytes of the bundle
  uint32_t members = 0;

  bool operator==(const BundleRef& o) const {
    return path == o.path && first_name == o.first_name && hash == o.hash &&
           size == o.size && members == o.members;
  }
};

inline constexpr std::string_view kBundlesTableSql =
    "CREATE TABLE bundles (path TEXT, first_name TEXT, hash TEXT, "
    "size INTEGER, members INTEGER, "
    "CONSTRAINT pk_bundles PRIMARY KEY (path, first_name));";

// The row of one directory's rows (sorted by first_name) that covers
// `name`: the greatest first_name <= name; null if none.
const BundleRef* FindCoveringBundle(const std::vector<BundleRef>& rows,
                                    std::string_view name);

// Parses a bundle as it streams in and hands its members to a Visitor.
// Feed() the bytes in any pieces, then Finish(). Every error is Corruption
// naming what is wrong; after an error the reader must not be fed again.
// The reader hashes everything fed with `algorithm`; digest() is the
// bundle's hash after Finish(). Members' digests must use `algorithm` too.
class BundleReader {
 public:
  class Visitor {
   public:
    virtual ~Visitor() = default;
    // A member starts; its `size` bytes follow through MemberData.
    virtual Status BeginMember(const BundleMember& member) = 0;
    virtual Status MemberData(const void* data, size_t size) = 0;
    // All of the member's bytes were given.
    virtual Status EndMember() = 0;
  };

  BundleReader(HashAlgorithm algorithm, Visitor* visitor);

  Status Feed(const void* data, size_t size);
  // Corruption unless the whole body announced by the header was fed.
  Status Finish();
  const std::vector<BundleMember>& members() const { return members_; }
  Digest digest() const { return digest_; }

 private:
  Status ParseHeader();
  Status FeedBody(const char* data, size_t size);

  HashAlgorithm algorithm_;
  Visitor* visitor_;
  Hasher hasher_;
  std::string header_;  // while the header is incomplete
  bool in_body_ = false;
  std::vector<BundleMember> members_;
  size_t member_ = 0;         // index of the member being read
  uint64_t member_left_ = 0;  // its bytes not yet seen
  bool member_open_ = false;  // BeginMember was called for it
  Digest digest_;
};

}  // namespace cvmfs

#endif  // CVMFS_BUNDLE_H_
