// FileSystem: the read-only file system of one mounted repository, in
// FUSE-free terms. The FUSE adapter (fuse_adapter.cc) maps each kernel
// request to one call here and the Status back to an errno; everything else
// (catalogs, inodes, the cache, downloads, magic attributes) lives behind
// this class, so it is tested without a kernel.
//
// clang-format off
//   kernel ─► fuse_adapter ─► FileSystem
//                               ├─► InodeTable (what the kernel knows)
//                               ├─► CatalogSet (entries, nested catalogs)
//                               ├─► PrefetchTriggers ─► Prefetcher
//                               └─► ObjectFetcher ─► cache / HTTP
// clang-format on
//
// Errors: NotFound is a missing entry (the adapter replies a negative entry
// the kernel may cache); everything else that fails is reported as EIO (a
// download that failed is never taken for a missing file).
//
// Thread safety: every method may be called from many FUSE threads at once.
// No lock is held across a download or a catalog query.
#ifndef CLIENT_FILE_SYSTEM_H_
#define CLIENT_FILE_SYSTEM_H_

#include <sys/stat.h>
#include <sys/statvfs.h>

#include <atomic>
#include <cstdint>
#include <ctime>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "cache/posix_cache.h"
#include "client/bundle_index.h"
#include "client/catalog_set.h"
#include "client/inode_table.h"
#include "client/magic_xattrs_protection.h"
#include "client/magic_xattrs_visibility.h"
#include "client/object_fetcher.h"
#include "client/open_file.h"
#include "client/prefetch/prefetch_triggers.h"
#include "client/prefetch/prefetcher.h"
#include "cvmfs/clock.h"
#include "cvmfs/manifest.h"
#include "cvmfs/mutex.h"

namespace cvmfs::client {

// What the magic attributes report about the network (host, proxy, ...).
class NetworkView {
 public:
  virtual ~NetworkView() = default;
  virtual std::string host() const = 0;
  virtual std::string proxy() const = 0;
  virtual std::string host_list() const = 0;
  virtual std::string proxy_list() const = 0;
  virtual int timeout() const = 0;
  virtual int timeout_direct() const = 0;
  // The external data servers (CVMFS_EXTERNAL_URL, doc/client.md
  // "External data"): the current one ("" without any), their proxies,
  // and their timeout without a proxy.
  virtual std::string external_host() const { return ""; }
  virtual std::string external_proxy_list() const { return "DIRECT"; }
  virtual int external_timeout_direct() const { return timeout_direct(); }
};

struct FileSystemOptions {
  std::string fqrn;
  bool claim_ownership = true;  // present every entry as owned by uid/gid
  uid_t uid = 0;
  gid_t gid = 0;
  double kcache_timeout =
      60;  // seconds the kernel may cache entries and attributes
  // Values of $(VAR) in variant symlinks (configuration and CVMFS_ARCH).
  std::function<std::optional<std::string>(const std::string&)> variables;
  std::string tag;  // CVMFS_REPOSITORY_TAG, if the mount is pinned to one
  int readahead_threads = 2;
  // CVMFS_MEMCACHE_SIZE: the memory the remembered inodes may take
  // (InodeTable; doc/client.md, "Memory"); 0 = unbounded.
  size_t memcache_bytes = 16u << 20;
  // CVMFS_MAGIC_XATTRS_VISIBILITY (and CVMFS_HIDE_MAGIC_XATTRS): where
  // listxattr names the magic attributes (they can always be read by name).
  MagicXattrsVisibility magic_xattrs_visibility =
      MagicXattrsVisibility::kRootOnly;
  // CVMFS_XATTR_PROTECTED_XATTRS and CVMFS_XATTR_PRIVILEGED_GIDS.
  MagicXattrsProtection xattr_protection;
  // user.pubkeys: the text (PEM) of each public key the mount trusts.
  std::vector<std::string> public_keys;
  // user.logbuffer: the mount's recent syslog messages; unset = none.
  std::function<std::string()> log_buffer;
  // Prefetch (doc/client.md, "Prefetch"): when a directory is listed or
  // one of its files is first read, its small files and, breadth first,
  // those of its subdirectories are fetched in the background (the engine
  // and its budget: prefetcher.h); the next chunks of a large file read
  // sequentially too. prefetch.enabled = false turns it off.
  PrefetchOptions prefetch;
  // Bundles (doc/client.md, "Bundles"; CVMFS_BUNDLES): a cold open of a
  // small file, and prefetch, take the file's object from its directory's
  // bundle. Needs ObjectFetcher::EnableBundles too.
  bool bundles = true;
  // Where the file system reads "now" (the uptime); tests pass a
  // ManualClock (and set prefetch.clock for the triggers). Borrowed, never
  // null.
  const Clock* clock = SteadyClock();
};

// The revision a FileSystem serves.
struct MountedRevision {
  Manifest manifest;
  Digest root_hash;  // the root catalog mounted (== manifest.root_catalog
                     // unless pinned)
  uint64_t revision = 0;
  std::string host;  // where the manifest came from ("" if from the cache)
};

// What the magic attributes and cvmfs_talk report about the mount, taken
// at once on request (FileSystem::Statistics).
struct MountStatistics {
  std::string fqrn;
  std::string tag;
  MountedRevision revision;
  FetchCounters fetch;
  PrefetchCounters prefetch;
  size_t catalogs = 0;           // catalogs attached
  uint64_t total_opens = 0;      // open() calls (and first reads by inode)
  uint64_t open_files = 0;       // files open now
  uint64_t open_dirs = 0;        // directories open now
  uint64_t io_errors = 0;        // failures reported as EIO
  uint64_t total_dir_opens = 0;  // opendir() calls
  // When the last I/O error happened, counted from the mount (uptime).
  std::optional<Clock::Duration> last_io_error;
  // Seconds until the next revision check, if the mount schedules one
  // (user.expires); otherwise expires counts the TTL from the mount.
  std::optional<int64_t> seconds_until_check;
  uint64_t inode_max = 0;                // the next inode to be handed out
  size_t known_inodes = 0;               // inodes remembered (InodeTable)
  size_t inode_bytes = 0;                // their estimated memory
  uint64_t inode_evictions = 0;          // dropped for room
  uint64_t inode_rebuilds = 0;           // rebuilt from their number
  Clock::Duration uptime{};              // since the file system was built
  const NetworkView* network = nullptr;  // borrowed (live), may be null
};

struct EntryReply {
  uint64_t inode = 0;  // 0 with NotFound-free result never happens
  struct stat attr {};
};

struct DirEntry {
  std::string name;
  uint64_t inode = 0;
  struct stat attr {};
  std::shared_ptr<const InodeInfo> info;  // for Remember() on readdirplus
};

class FileSystem {
 public:
  FileSystem(FileSystemOptions options, ObjectFetcher* objects,
             cache::PosixCache* cache, std::unique_ptr<CatalogSet> catalogs,
             MountedRevision revision, const NetworkView* network);
  ~FileSystem();

  const FileSystemOptions& options() const { return options_; }
  MountedRevision revision() const EXCLUDES(revision_mu_);

  // Serves `revision` from now on (doc/client.md, "Revision updates"):
  // lookups and listings see the new catalogs at once; inodes the kernel
  // knows from before keep their old content until it forgets them; the
  // kernel is told to drop its cached entries (through the invalidator).
  void SwitchRevision(std::unique_ptr<CatalogSet> catalogs,
                      MountedRevision revision)
      EXCLUDES(revision_mu_, hardlink_mu_, listings_.mu);
  // Called with (parent inode, name) for every entry the kernel may cache,
  // and with (directory inode, "") for every directory whose listing it may
  // cache, after a revision switch. Set by the FUSE adapter; runs on the
  // caller's thread (never a FUSE request thread).
  using Invalidator =
      std::function<void(uint64_t parent, const std::string& name)>;
  void set_invalidator(Invalidator invalidator) EXCLUDES(revision_mu_);
  // Called with the repository path of every regular file opened (open, or
  // the first read of a file the kernel read without opening), before its
  // content is fetched: the open recorder and the recorded prefetch lists
  // listen here (doc/format-prefetch-list.md). Set before the file system
  // serves requests; runs on FUSE threads, so it must not block.
  using OpenObserver = std::function<void(const std::string& path)>;
  void set_open_observer(OpenObserver observer) {
    open_observer_ = std::move(observer);
  }

  Result<EntryReply> Lookup(uint64_t parent, const std::string& name);
  void Forget(uint64_t inode, uint64_t nlookup);
  Result<struct stat> GetAttr(uint64_t inode);
  Result<std::string> ReadLink(uint64_t inode);

  // `keep_cache` tells the kernel it may keep pages from an earlier open.
  Result<OpenFile*> Open(uint64_t inode, bool* keep_cache);
  // Reads by inode, for kernels that open files without asking us (FUSE
  // "no_open": no open/release round trip per open(2)). The content of the
  // most recently read files stays open in a small LRU (kOpenByInode).
  Result<size_t> ReadInode(uint64_t inode, char* buf, size_t size,
                           off_t offset);
  Result<size_t> Read(OpenFile* file, char* buf, size_t size, off_t offset);
  void Release(OpenFile* file);

  // The whole listing of a directory, "." and ".." first.
  Result<std::vector<DirEntry>> ReadDir(uint64_t inode);
  // The same, for kernels that list directories without opendir (FUSE
  // "no_opendir"): recent listings are kept, since readdir comes in slices.
  Result<std::shared_ptr<const std::vector<DirEntry>>> ListingFor(
      uint64_t inode);
  // A readdirplus reply handed `entry` to the kernel: one more lookup.
  void RememberListed(const DirEntry& entry);

  Result<struct statvfs> StatFs();
  // `caller_gid`: the group of the process asking, for protected magic
  // attributes (magic_xattrs_protection.h); nullopt = the client itself.
  Result<std::string> GetXattr(uint64_t inode, const std::string& name,
                               std::optional<gid_t> caller_gid = std::nullopt);
  Result<std::vector<std::string>> ListXattr(uint64_t inode);
  // Whether any entry of the mounted revision carries extended attributes
  // (the root catalog's xattr counters, which include nested catalogs).
  // Without any, the repository has no security labels or ACLs at all.
  bool RevisionHasXattrs();

  // The counters and state the magic attributes and cvmfs_talk report.
  MountStatistics Statistics() const;
  void DirOpened() {
    ++open_dirs_;
    ++total_dir_opens_;
  }
  void DirClosed() { --open_dirs_; }
  uint64_t io_errors() const { return io_errors_.load(); }
  // The prefetch engine of this mount (never null; Enqueue does nothing
  // when prefetch is off). Callers with their own lists of objects (recorded
  // prefetch lists) queue them here.
  Prefetcher* prefetcher() { return triggers_.engine(); }
  PrefetchTriggers* prefetch_triggers() { return &triggers_; }
  void set_inode_counter(const std::atomic<uint64_t>* next) {
    next_inode_ = next;
  }
  // Seconds until the next revision check (the mount's updater, which owns
  // the schedule); user.expires and `cvmfs_config stat` report it. Set
  // once, before the mount serves requests; it must outlive this object.
  void set_next_check_source(std::function<int64_t()> seconds_until_check) {
    seconds_until_check_ = std::move(seconds_until_check);
  }
  std::shared_ptr<CatalogSet> catalogs() const EXCLUDES(revision_mu_);
  ObjectFetcher* objects() { return objects_; }
  cache::PosixCache* cache() { return cache_; }
  // For cvmfs_talk: `reset error counters`.
  void ResetErrorCounters() { io_errors_ = 0; }
  // Closes the files ReadInode keeps open (a read in progress keeps its
  // own reference), so that `cvmfs_talk evict` and `cleanup` can remove
  // recently read objects; the next read opens the file again. Returns how
  // many files were closed.
  size_t CloseIdleFiles() EXCLUDES(open_by_inode_.mu);

 private:
  // Files kept open for ReadInode, and listings for ListingFor: enough for
  // the working set of a build or a tar, few enough to bound descriptors.
  static constexpr size_t kOpenByInode = 256;
  // Listings kept, counted in entries (a listing counts its size): a few
  // directories of a large tree, or one huge directory read in slices.
  static constexpr size_t kListingsByInode = 64;
  static constexpr size_t kListingEntries = 1 << 13;
  template <typename T>
  struct InodeLru {
    cvmfs::Mutex mu;  // guards order and items; leaf lock
    std::list<uint64_t> order GUARDED_BY(mu);  // most recent first
    std::unordered_map<
        uint64_t,
        std::tuple<std::shared_ptr<T>, std::list<uint64_t>::iterator, size_t>>
        items GUARDED_BY(mu);
    size_t weight GUARDED_BY(mu) = 0;  // sum of the items' weights
    std::shared_ptr<T> Get(uint64_t inode) EXCLUDES(mu);
    // Keeps at most `capacity` items and `max_weight` of weight (the
    // newest item stays whatever it weighs).
    void Put(uint64_t inode, std::shared_ptr<T> value, size_t capacity,
             size_t item_weight = 1, size_t max_weight = SIZE_MAX) EXCLUDES(mu);
  };
  Result<std::unique_ptr<OpenFile>> MakeOpenFile(
      std::shared_ptr<const InodeInfo> info);
  Result<std::shared_ptr<const InodeInfo>> Info(uint64_t inode);
  // An inode InodeTable dropped for room, rebuilt from its number in the
  // revision that numbered it (the current one or a retired one).
  Result<std::shared_ptr<const InodeInfo>> Rebuild(uint64_t inode)
      EXCLUDES(revision_mu_);
  // The entry `name` in directory `parent`, with its inode.
  Result<std::pair<uint64_t, std::shared_ptr<const InodeInfo>>> Resolve(
      uint64_t parent_inode, const InodeInfo& parent, const std::string& name);
  std::shared_ptr<InodeInfo> RootInfo(const std::shared_ptr<CatalogSet>& set);
  uint64_t InodeOf(const MountedCatalog* catalog, const std::string& dir,
                   const DirectoryEntry& entry) EXCLUDES(hardlink_mu_);
  struct stat ToStat(uint64_t inode, const DirectoryEntry& entry) const;
  std::string ExpandLink(const std::string& raw) const;
  Status CountError(Status st);

  FileSystemOptions options_;
  ObjectFetcher* objects_;    // borrowed
  cache::PosixCache* cache_;  // borrowed
  // Guards catalogs_, revision_ and invalidator_ (held for copies only);
  // leaf lock.
  mutable cvmfs::Mutex revision_mu_;
  std::shared_ptr<CatalogSet> catalogs_ GUARDED_BY(revision_mu_);
  MountedRevision revision_ GUARDED_BY(revision_mu_);
  Invalidator invalidator_ GUARDED_BY(revision_mu_);
  // Revisions switched away from: the kernel may still use their inodes
  // until its entries time out (kcache_timeout), even those InodeTable
  // dropped, so each set is kept that long, then only while remembered
  // inodes hold it (the weak reference finds it for Rebuild).
  struct RetiredSet {
    Clock::TimePoint until;
    std::shared_ptr<CatalogSet> keep;  // reset after `until`
    std::weak_ptr<CatalogSet> set;
  };
  std::vector<RetiredSet> retired_ GUARDED_BY(revision_mu_);
  std::atomic<uint64_t> inode_rebuilds_{0};
  const NetworkView* network_;  // borrowed, may be null
  InodeTable inodes_;
  const Clock::TimePoint mount_time_;  // options_.clock
  // The bundle rows of recently read directories; null while bundles are
  // off. Before triggers_: the prefetch queue holds requests that use it.
  std::unique_ptr<BundleIndex> bundle_index_;

  // When prefetch starts (prefetch_triggers.h): told of opens, listings,
  // streams and revision switches. ~FileSystem stops its background jobs
  // before any member goes.
  PrefetchTriggers triggers_;
  // What open files read through (their read-ahead goes to triggers_).
  OpenFileServices open_file_services_;

  // Hardlink group leaders: (catalog base, directory, group) -> inode.
  cvmfs::Mutex hardlink_mu_;  // guards hardlink_leaders_; leaf lock
  std::map<std::tuple<uint64_t, std::string, uint32_t>, uint64_t>
      hardlink_leaders_ GUARDED_BY(hardlink_mu_);

  InodeLru<OpenFile> open_by_inode_;
  InodeLru<const std::vector<DirEntry>> listings_;
  std::atomic<uint64_t> open_files_{0}, open_dirs_{0}, io_errors_{0},
      total_opens_{0}, total_dir_opens_{0};
  // When the last I/O error happened, in ns since mount_time_, plus one;
  // 0: none yet.
  std::atomic<int64_t> last_io_error_ns_{0};
  // Opens (with their downloads) and reads running now: how many programs
  // read in parallel (Prefetcher::demand_parallel).
  std::atomic<int> busy_{0};
  const std::atomic<uint64_t>* next_inode_ = nullptr;  // borrowed
  std::function<int64_t()> seconds_until_check_;       // may be empty
  OpenObserver open_observer_;  // set once before serving, then read-only
};

}  // namespace cvmfs::client

#endif  // CLIENT_FILE_SYSTEM_H_
