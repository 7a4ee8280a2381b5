#include "cvmfs/compression.h"

#include <libdeflate.h>
#include <zlib.h>

#include <algorithm>
#include <string>

namespace cvmfs {

Result<Compression> ParseCompressionName(std::string_view name) {
  if (name == "zlib" || name == "default") return Compression::kZlib;
  if (name == "none") return Compression::kNone;
  return Status::InvalidArgument("unknown compression '" + std::string(name) +
                                 "' (expected zlib or none)");
}

std::string_view CompressionName(Compression c) {
  return c == Compression::kNone ? "none" : "zlib";
}

Compressor::Compressor(int level) : c_(libdeflate_alloc_compressor(level)) {}
Compressor::~Compressor() { libdeflate_free_compressor(c_); }

void Compressor::Compress(std::string_view in, std::string* out) {
  size_t bound = libdeflate_zlib_compress_bound(c_, in.size());
  out->resize(bound);
  size_t n =
      libdeflate_zlib_compress(c_, in.data(), in.size(), out->data(), bound);
  out->resize(n);
}

Inflater::Inflater() : z_(new z_stream_s{}) { inflateInit(z_.get()); }
Inflater::~Inflater() { inflateEnd(z_.get()); }

void Inflater::Reset() {
  inflateReset(z_.get());
  done_ = false;
  trailing_ = false;
}

Status Inflater::Feed(const void* data, size_t size, const Sink& sink) {
  if (size == 0) return Status::Ok();
  if (done_) {
    trailing_ = true;
    return Status::Corruption("data after the end of the zlib stream");
  }
  char buf[64 * 1024];
  z_->next_in = static_cast<Bytef*>(const_cast<void*>(data));
  z_->avail_in = static_cast<uInt>(size);
  while (z_->avail_in > 0 && !done_) {
    z_->next_out = reinterpret_cast<Bytef*>(buf);
    z_->avail_out = sizeof(buf);
    int rc = inflate(z_.get(), Z_NO_FLUSH);
    if (rc != Z_OK && rc != Z_STREAM_END && rc != Z_BUF_ERROR)
      return Status::Corruption(std::string("zlib: ") +
                                (z_->msg ? z_->msg : "inflate failed"));
    size_t produced = sizeof(buf) - z_->avail_out;
    if (produced > 0) CVMFS_RETURN_IF_ERROR(sink(buf, produced));
    if (rc == Z_STREAM_END) done_ = true;
    if (rc == Z_BUF_ERROR && produced == 0) break;
  }
  if (done_ && z_->avail_in > 0) {
    trailing_ = true;
    return Status::Corruption("data after the end of the zlib stream");
  }
  // Drain output that fits no more into the buffer while input is consumed.
  while (!done_ && z_->avail_in == 0) {
    z_->next_out = reinterpret_cast<Bytef*>(buf);
    z_->avail_out = sizeof(buf);
    int rc = inflate(z_.get(), Z_NO_FLUSH);
    size_t produced = sizeof(buf) - z_->avail_out;
    if (produced > 0) CVMFS_RETURN_IF_ERROR(sink(buf, produced));
    if (rc == Z_STREAM_END) {
      done_ = true;
      break;
    }
    if (rc != Z_OK || produced == 0) break;
  }
  return Status::Ok();
}

Deflater::Deflater(int level) : z_(new z_stream_s{}) {
  deflateInit(z_.get(), level);
}
Deflater::~Deflater() { deflateEnd(z_.get()); }

Status Deflater::Run(int flush, const Sink& sink) {
  unsigned char out[64 * 1024];
  int rc;
  do {
    z_->next_out = out;
    z_->avail_out = sizeof(out);
    rc = deflate(z_.get(), flush);
    if (rc == Z_STREAM_ERROR) return Status::IoError("deflate failed");
    const size_t n = sizeof(out) - z_->avail_out;
    if (n > 0) CVMFS_RETURN_IF_ERROR(sink(reinterpret_cast<char*>(out), n));
  } while (z_->avail_out == 0 || (flush == Z_FINISH && rc != Z_STREAM_END));
  return Status::Ok();
}

Status Deflater::Feed(const void* data, size_t size, const Sink& sink) {
  z_->next_in = static_cast<Bytef*>(const_cast<void*>(data));
  z_->avail_in = static_cast<uInt>(size);
  return Run(Z_NO_FLUSH, sink);
}

Status Deflater::Finish(const Sink& sink) { return Run(Z_FINISH, sink); }

Status Inflater::Finish() const {
  if (trailing_)
    return Status::Corruption("data after the end of the zlib stream");
  if (!done_) return Status::Corruption("truncated zlib stream");
  return Status::Ok();
}

Result<size_t> InflateInto(libdeflate_decompressor* d, std::string_view in,
                           char* out, size_t room) {
  size_t in_used = 0, out_size = 0;
  const libdeflate_result rc = libdeflate_zlib_decompress_ex(
      d, in.data(), in.size(), out, room, &in_used, &out_size);
  if (rc == LIBDEFLATE_INSUFFICIENT_SPACE ||
      (rc == LIBDEFLATE_SUCCESS && out_size == room))
    return Status::NoSpace("inflates to " + std::to_string(room) +
                           " bytes or more");
  if (rc != LIBDEFLATE_SUCCESS)
    return Status::Corruption("zlib: invalid or truncated stream");
  if (in_used != in.size())
    return Status::Corruption("data after the end of the zlib stream");
  return out_size;
}

WholeInflater::WholeInflater() : d_(libdeflate_alloc_decompressor()) {}
WholeInflater::~WholeInflater() { libdeflate_free_decompressor(d_); }

Result<std::string_view> WholeInflater::Inflate(std::string_view in,
                                                uint64_t max_out,
                                                uint64_t size_hint) {
  if (d_ == nullptr) return Status::NoSpace("cannot allocate a decompressor");
  // One byte more than allowed: a stream that fills it inflates beyond.
  const uint64_t cap = max_out + 1;
  uint64_t room = std::min<uint64_t>(
      cap, std::max<uint64_t>({size_hint + 1, 4 * in.size(), 4096}));
  for (;;) {
    if (out_.size() < room) out_.resize(room);
    auto n = InflateInto(d_, in, out_.data(), room);
    if (n.ok()) return std::string_view(out_.data(), *n);
    if (n.status().code() != Status::Code::kNoSpace) return n.status();
    if (room >= cap)
      return Status::Corruption("inflates to more than " +
                                std::to_string(max_out) + " bytes");
    room = std::min<uint64_t>(cap, room * 4);
  }
}

Status Decompress(std::string_view in, std::string* out) {
  out->clear();
  Inflater inf;
  CVMFS_RETURN_IF_ERROR(
      inf.Feed(in.data(), in.size(), [out](const char* d, size_t n) {
        out->append(d, n);
        return Status::Ok();
      }));
  return inf.Finish();
}

std::string ZlibCompress(std::string_view in, int level) {
  uLongf bound = compressBound(in.size());
  std::string out(bound, '\0');
  compress2(reinterpret_cast<Bytef*>(out.data()), &bound,
            reinterpret_cast<const Bytef*>(in.data()), in.size(), level);
  out.resize(bound);
  return out;
}

}  // namespace cvmfs
