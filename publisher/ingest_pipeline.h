// IngestPipeline: turns file contents into stored objects, on all cores.
//
//   reader (caller's thread) ─► chunker ─► piece queue ─► workers:
//       [content index hit whose object exists? reuse it]
//       compress ─► hash ─► exists? skip : store (temp + rename)
//       ─► record in the content index
//
// The caller feeds one file at a time through Submit(); reading and chunking
// happen on the caller's thread, compression, hashing and storing on a pool
// of workers. SubmitOwned() takes a source that any thread may read (a file
// of its own, not a tar stream): a file that is one piece is then read by
// the worker too, so that many small files are read and hashed on all cores
// while the caller only scans and registers them. Memory is bounded: at most
// `max_inflight_bytes` of file data (plus one piece per worker being
// compressed) is held or promised at once, whatever the file sizes; Submit
// blocks while the budget is used up.
//
// A file of at most `chunking.min_size` bytes (or any file with chunking off)
// is one "bulk" object; a larger file is cut by the xor32 chunker into pieces
// stored as `P` objects, unless it yields a single piece, which is stored as
// a bulk object. Objects already in the store are not written again. A
// file of at least a MiB whose first piece does not compress is stored
// uncompressed, every chunk of it (compressibility.h).
//
// Thread safety: Submit/Drain from one thread; PendingFile results are read
// after Wait().
#ifndef PUBLISHER_INGEST_PIPELINE_H_
#define PUBLISHER_INGEST_PIPELINE_H_

#include <atomic>
#include <condition_variable>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "cvmfs/catalog/dirent.h"
#include "cvmfs/chunker.h"
#include "cvmfs/compression.h"
#include "cvmfs/hash.h"
#include "cvmfs/mutex.h"
#include "cvmfs/object_name.h"
#include "cvmfs/object_store.h"
#include "cvmfs/progress.h"
#include "cvmfs/status.h"
#include "publisher/catalog_tree.h"
#include "publisher/compressibility.h"
#include "publisher/content_index.h"

namespace publisher {

struct IngestOptions {
  cvmfs::HashAlgorithm hash_algorithm = cvmfs::HashAlgorithm::kSha1;
  cvmfs::Compression compression = cvmfs::Compression::kZlib;
  bool use_chunking = true;
  cvmfs::ChunkingParams chunking;
  int workers = 2;
  size_t max_inflight_bytes = 64u << 20;
  // Recognizes content stored before without compressing it again
  // (content_index.h); not owned, may be null. Unused without compression.
  ContentIndex* content_index = nullptr;
  // Counts each file and its bytes as it is submitted; not owned, may be
  // null.
  cvmfs::ProgressCounters* progress = nullptr;
};

// Where file bytes come from (a tar member, a local file).
class ByteSource {
 public:
  virtual ~ByteSource() = default;
  // Reads up to `size` bytes; 0 means end of data.
  virtual cvmfs::Result<size_t> Read(void* buf, size_t size) = 0;
};

// The outcome of one submitted file, filled in by the workers.
class PendingFile {
 public:
  // Content already stored (e.g. a file of the tree being built): `chunks`
  // holds one piece, the bulk object, or the chunks of a chunked file,
  // stored with `compression`.
  static std::shared_ptr<PendingFile> Stored(
      uint64_t size, std::vector<cvmfs::FileChunk> chunks,
      cvmfs::Compression compression);
  // Blocks until every piece is stored (or failed).
  void Wait();
  bool Ready();
  const cvmfs::Status& status() const { return status_; }
  uint64_t size() const { return size_; }
  bool chunked() const { return chunks_.size() > 1; }
  // For a bulk file: its object hash.
  const cvmfs::Digest& bulk_hash() const { return chunks_.front().hash; }
  const std::vector<cvmfs::FileChunk>& chunks() const { return chunks_; }
  // How its objects are stored: the repository's compression, or none for
  // content that does not compress.
  cvmfs::Compression compression() const { return compression_; }

 private:
  friend class IngestPipeline;
  // Guards outstanding_; the members below it are written under it while
  // outstanding_ > 0 and read without it once it is 0 (not annotated: the
  // analysis cannot see that hand-over). A leaf lock.
  cvmfs::Mutex mu_;
  std::condition_variable cv_;
  int outstanding_ GUARDED_BY(mu_) = 1;  // pieces not stored, +1 submitting
  cvmfs::Status status_;
  uint64_t size_ = 0;
  std::vector<cvmfs::FileChunk> chunks_;
  cvmfs::Compression compression_ = cvmfs::Compression::kZlib;
};

struct IngestStats {
  std::atomic<uint64_t> files{0};
  std::atomic<uint64_t> bytes_in{0};
  std::atomic<uint64_t> bytes_stored{0};  // compressed bytes written
  std::atomic<uint64_t> objects_stored{0};
  std::atomic<uint64_t> objects_existing{0};
  // Of objects_existing: found through the content index, not compressed.
  std::atomic<uint64_t> objects_recognized{0};
  // Files stored uncompressed because they do not compress.
  std::atomic<uint64_t> files_incompressible{0};
};

class IngestPipeline {
 public:
  IngestPipeline(cvmfs::ObjectStore* store, IngestOptions options);
  ~IngestPipeline();  // waits for the workers
  IngestPipeline(const IngestPipeline&) = delete;
  IngestPipeline& operator=(const IngestPipeline&) = delete;

  // Reads `source` to its end. `expected_size` (if known) is checked against
  // what was read: a file that changes while it is read is an error.
  std::shared_ptr<PendingFile> Submit(ByteSource* source,
                                      std::optional<uint64_t> expected_size);
  // Like Submit for a file of exactly `size` bytes whose source may be read
  // on a worker thread; the pipeline owns `source` until the file is
  // processed. A file that is chunked is read on the caller's thread as
  // with Submit.
  std::shared_ptr<PendingFile> SubmitOwned(std::unique_ptr<ByteSource> source,
                                           uint64_t size);
  // Waits until every submitted piece is processed.
  void Drain();
  const IngestStats& stats() const { return stats_; }

 private:
  struct Piece {
    std::shared_ptr<PendingFile> file;
    size_t index;
    uint64_t offset;
    std::string data;
    cvmfs::ObjectSuffix suffix;
    // Set for a whole file still to be read (SubmitOwned): `data` is empty
    // and `bytes` is its size.
    std::unique_ptr<ByteSource> source;
    size_t bytes = 0;  // charged against max_inflight_bytes
    // The file's; unset for an owned source, decided once it is read.
    std::optional<cvmfs::Compression> compression;
  };
  void Enqueue(Piece piece);
  // Reads an owned source into piece.data on a worker.
  static cvmfs::Status ReadOwned(Piece& piece);
  void WorkerLoop();
  // Decides how the file of `first` is stored (compressibility.h) and
  // records it in the file.
  cvmfs::Compression ChooseCompression(const Piece& first,
                                       CompressibilityProbe* probe);
  void Process(Piece& piece, cvmfs::Compressor* compressor,
               CompressibilityProbe* probe, std::string* buf);
  // True when the content index names an existing object for the piece.
  bool Recognize(Piece& piece, const ContentIndex::Key& key);
  void SetPieceHash(Piece& piece, const cvmfs::Digest& digest);
  static void Finish(PendingFile* file, const cvmfs::Status& st);

  static constexpr size_t kReadBlock = 1 << 20;

  cvmfs::ObjectStore* store_;     // not owned; outlives the pipeline
  std::vector<char> read_block_;  // Submit's read buffer (Submit's thread only)
  CompressibilityProbe probe_;    // Submit's thread only
  IngestOptions options_;
  IngestStats stats_;

  // Guards queue_, inflight_bytes_, busy_, stop_. Taken alone: never with
  // a PendingFile's mu_ or the content index's.
  cvmfs::Mutex mu_;
  std::condition_variable work_cv_;   // workers wait for pieces
  std::condition_variable space_cv_;  // Submit waits for budget; Drain for idle
  std::deque<Piece> queue_ GUARDED_BY(mu_);
  size_t inflight_bytes_ GUARDED_BY(mu_) = 0;
  int busy_ GUARDED_BY(mu_) = 0;
  bool stop_ GUARDED_BY(mu_) = false;
  std::vector<std::thread> workers_;
};

// Waits for `content`, fills in `entry`'s size and content hash (or marks it
// chunked) and puts it at `path`: how every ingested regular file reaches
// the catalog (tar ingest and transactions alike).
cvmfs::Status PutIngestedFile(const std::string& path,
                              cvmfs::DirectoryEntry entry, PendingFile* content,
                              CatalogTree* tree);

}  // namespace publisher

#endif  // PUBLISHER_INGEST_PIPELINE_H_
