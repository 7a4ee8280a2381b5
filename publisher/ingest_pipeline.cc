#include "publisher/ingest_pipeline.h"

#include "cvmfs/object_name.h"

namespace publisher {

using cvmfs::Status;

void PendingFile::Wait() {
  cvmfs::MutexLock l(&mu_);
  while (outstanding_ != 0) l.Wait(&cv_);
}

std::shared_ptr<PendingFile> PendingFile::Stored(
    uint64_t size, std::vector<cvmfs::FileChunk> chunks,
    cvmfs::Compression compression) {
  auto file = std::make_shared<PendingFile>();
  cvmfs::MutexLock l(&file->mu_);
  file->outstanding_ = 0;
  file->size_ = size;
  file->chunks_ = std::move(chunks);
  file->compression_ = compression;
  return file;
}

bool PendingFile::Ready() {
  cvmfs::MutexLock l(&mu_);
  return outstanding_ == 0;
}

IngestPipeline::IngestPipeline(cvmfs::ObjectStore* store, IngestOptions options)
    : store_(store), options_(std::move(options)) {
  int n = std::max(1, options_.workers);
  for (int i = 0; i < n; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

IngestPipeline::~IngestPipeline() {
  {
    cvmfs::MutexLock l(&mu_);
    stop_ = true;
  }
  work_cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void IngestPipeline::Finish(PendingFile* file, const Status& st) {
  cvmfs::MutexLock l(&file->mu_);
  if (!st.ok() && file->status_.ok()) file->status_ = st;
  if (--file->outstanding_ == 0) file->cv_.notify_all();
}

void IngestPipeline::Enqueue(Piece piece) {
  cvmfs::MutexLock l(&mu_);
  // Admit a piece when it fits the budget, or when nothing is in flight (a
  // single piece may be larger than the budget).
  while (inflight_bytes_ != 0 &&
         inflight_bytes_ + piece.bytes > options_.max_inflight_bytes) {
    l.Wait(&space_cv_);
  }
  inflight_bytes_ += piece.bytes;
  queue_.push_back(std::move(piece));
  l.Unlock();
  work_cv_.notify_one();
}

std::shared_ptr<PendingFile> IngestPipeline::Submit(
    ByteSource* source, std::optional<uint64_t> expected_size) {
  auto file = std::make_shared<PendingFile>();
  const bool chunk =
      options_.use_chunking &&
      (!expected_size || cvmfs::ShouldChunk(*expected_size, options_.chunking));
  cvmfs::Xor32Chunker chunker(options_.chunking);
  std::string piece;
  uint64_t piece_offset = 0, total = 0;
  size_t index = 0;
  // Allocated once: zeroing a fresh block per file would cost more than
  // reading a typical small file.
  std::vector<char>& block = read_block_;
  if (block.empty()) block.resize(kReadBlock);

  std::optional<cvmfs::Compression> compression;
  auto emit = [&](cvmfs::ObjectSuffix suffix) {
    {
      cvmfs::MutexLock l(&file->mu_);
      file->chunks_.push_back(
          cvmfs::FileChunk{piece_offset, piece.size(), cvmfs::Digest{}});
      ++file->outstanding_;
    }
    Piece p{file,    index++, piece_offset, std::move(piece), suffix,
            nullptr, 0,       std::nullopt};
    p.bytes = p.data.size();
    // The first piece decides for every chunk of the file.
    if (!compression) compression = ChooseCompression(p, &probe_);
    p.compression = compression;
    piece_offset += p.data.size();
    piece = std::string();
    Enqueue(std::move(p));
  };

  Status st;
  for (;;) {
    auto n = source->Read(block.data(), block.size());
    if (!n.ok()) {
      st = n.status();
      break;
    }
    if (*n == 0) break;
    total += *n;
    if (expected_size && total > *expected_size) {
      st = Status::IoError("file grew while it was read");
      break;
    }
    const char* p = block.data();
    size_t left = *n;
    if (!chunk) {
      piece.append(p, left);
      continue;
    }
    while (left > 0) {
      size_t take = chunker.FindCut(reinterpret_cast<const uint8_t*>(p), left);
      piece.append(p, take);
      p += take;
      left -= take;
      if (chunker.AtCut()) {
        emit(cvmfs::ObjectSuffix::kPartial);
        chunker.Reset();
      }
    }
  }
  if (st.ok() && expected_size && total != *expected_size)
    st = Status::IoError("file changed while it was read (" +
                         std::to_string(total) + " bytes read, " +
                         std::to_string(*expected_size) + " expected)");
  if (st.ok()) {
    // The last piece: a chunk if others came before, else the bulk object.
    if (index > 0) {
      if (!piece.empty()) emit(cvmfs::ObjectSuffix::kPartial);
    } else {
      emit(cvmfs::ObjectSuffix::kNone);
    }
  }
  {
    cvmfs::MutexLock l(&file->mu_);
    file->size_ = total;
  }
  stats_.files++;
  stats_.bytes_in += total;
  if (options_.progress) options_.progress->Add(1, total);
  Finish(file.get(), st);
  return file;
}

std::shared_ptr<PendingFile> IngestPipeline::SubmitOwned(
    std::unique_ptr<ByteSource> source, uint64_t size) {
  if (options_.use_chunking && cvmfs::ShouldChunk(size, options_.chunking))
    return Submit(source.get(), size);
  auto file = std::make_shared<PendingFile>();
  file->size_ = size;
  file->chunks_.push_back(cvmfs::FileChunk{0, size, cvmfs::Digest{}});
  // outstanding_ is 1: the one piece; nothing is left to submit.
  stats_.files++;
  stats_.bytes_in += size;
  if (options_.progress) options_.progress->Add(1, size);
  Piece p{file,
          0,
          0,
          std::string(),
          cvmfs::ObjectSuffix::kNone,
          std::move(source),
          0,
          std::nullopt};
  p.bytes = static_cast<size_t>(size);
  Enqueue(std::move(p));
  return file;
}

Status IngestPipeline::ReadOwned(Piece& piece) {
  std::string& data = piece.data;
  data.resize(piece.bytes);
  size_t have = 0;
  while (have < data.size()) {
    CVMFS_ASSIGN_OR_RETURN(
        size_t n, piece.source->Read(data.data() + have, data.size() - have));
    if (n == 0)
      return Status::IoError("file changed while it was read (" +
                             std::to_string(have) + " bytes read, " +
                             std::to_string(data.size()) + " expected)");
    have += n;
  }
  char extra;
  CVMFS_ASSIGN_OR_RETURN(size_t n, piece.source->Read(&extra, 1));
  if (n != 0) return Status::IoError("file grew while it was read");
  piece.source.reset();  // closes the file early
  return Status::Ok();
}

void IngestPipeline::SetPieceHash(Piece& piece, const cvmfs::Digest& digest) {
  cvmfs::MutexLock l(&piece.file->mu_);
  piece.file->chunks_[piece.index].hash = digest;
}

bool IngestPipeline::Recognize(Piece& piece, const ContentIndex::Key& key) {
  std::optional<cvmfs::Digest> known = options_.content_index->Lookup(key);
  if (!known || !store_->Exists(cvmfs::ObjectPath(*known, piece.suffix)))
    return false;
  stats_.objects_existing++;
  stats_.objects_recognized++;
  SetPieceHash(piece, *known);
  return true;
}

cvmfs::Compression IngestPipeline::ChooseCompression(
    const Piece& first, CompressibilityProbe* probe) {
  const cvmfs::Compression c = probe->Choose(first.data, options_.compression);
  if (c != options_.compression) stats_.files_incompressible++;
  cvmfs::MutexLock l(&first.file->mu_);
  first.file->compression_ = c;
  return c;
}

void IngestPipeline::Process(Piece& piece, cvmfs::Compressor* compressor,
                             CompressibilityProbe* probe, std::string* buf) {
  if (piece.source) {
    Status read = ReadOwned(piece);
    if (!read.ok()) {
      Finish(piece.file.get(), read);
      return;
    }
  }
  // An owned source is one piece, the whole file.
  if (!piece.compression) piece.compression = ChooseCompression(piece, probe);
  const bool compress = *piece.compression == cvmfs::Compression::kZlib;
  std::optional<ContentIndex::Key> key;
  if (options_.content_index && compress &&
      piece.data.size() >= ContentIndex::kMinIndexedSize) {
    key = ContentIndex::KeyOf(piece.data, *piece.compression,
                              options_.hash_algorithm);
    if (Recognize(piece, *key)) {
      Finish(piece.file.get(), Status::Ok());
      return;
    }
  }
  cvmfs::StoreObjectOptions encoding;
  encoding.hash = options_.hash_algorithm;
  encoding.compression = *piece.compression;
  encoding.compressor = compressor;
  encoding.scratch = buf;
  auto stored = cvmfs::StoreObject(store_, piece.data, piece.suffix, encoding);
  if (!stored.ok()) {
    Finish(piece.file.get(), stored.status());
    return;
  }
  if (stored->existed) {
    stats_.objects_existing++;
  } else {
    stats_.objects_stored++;
    stats_.bytes_stored += stored->stored_size;
  }
  // Recorded only once the object is in the store.
  if (key) options_.content_index->Add(*key, stored->digest);
  SetPieceHash(piece, stored->digest);
  Finish(piece.file.get(), Status::Ok());
}

void IngestPipeline::WorkerLoop() {
  cvmfs::Compressor compressor(6);
  CompressibilityProbe probe;
  std::string buf;
  for (;;) {
    Piece piece;
    {
      cvmfs::MutexLock l(&mu_);
      while (!stop_ && queue_.empty()) l.Wait(&work_cv_);
      if (queue_.empty()) return;
      piece = std::move(queue_.front());
      queue_.pop_front();
      ++busy_;
    }
    size_t bytes = piece.bytes;
    Process(piece, &compressor, &probe, &buf);
    piece = Piece();
    if (buf.capacity() > (32u << 20)) std::string().swap(buf);
    {
      cvmfs::MutexLock l(&mu_);
      inflight_bytes_ -= bytes;
      --busy_;
    }
    space_cv_.notify_all();
  }
}

void IngestPipeline::Drain() {
  cvmfs::MutexLock l(&mu_);
  while (!queue_.empty() || busy_ != 0) l.Wait(&space_cv_);
}

cvmfs::Status PutIngestedFile(const std::string& path,
                              cvmfs::DirectoryEntry entry, PendingFile* content,
                              CatalogTree* tree) {
  content->Wait();
  if (!content->status().ok())
    return content->status().Annotate("publishing " + path);
  entry.size = content->size();
  entry.compression = content->compression();
  std::vector<cvmfs::FileChunk> chunks;
  if (content->chunked()) {
    entry.chunked = true;
    entry.content_hash.reset();
    chunks = content->chunks();
  } else {
    entry.chunked = false;
    entry.content_hash = content->bulk_hash();
  }
  return tree->Put(path, entry, chunks).Annotate("publishing " + path);
}

}  // namespace publisher
