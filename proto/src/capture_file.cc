#include "memframe/capture_file.h"

#include <stdio_ext.h>
#include <unistd.h>
#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "memframe/format.h"
#include "memframe/varint.h"

namespace memframe::wire {

namespace {
constexpr size_t kHeaderBytes = sizeof(kCaptureMagic) + 4;

// zstd codes the literals of each block (up to 128 KiB) with one Huffman
// table. A large record is a Packet holding one message (an EventBatch)
// whose columns have very different statistics (kinds, sizes, tick gaps), so
// a block spanning several columns codes them all with one table. Ending a
// block after each large column gives each its own: 10% smaller captures on
// the benchmark workload (tests/bench/README.md), in the same format (blocks
// inside a frame; a reader cannot tell).
constexpr size_t kSplitRecordBytes = 16 * 1024;
constexpr size_t kSplitColumnBytes = 1024;

// Offsets in `packet` after which a block should end: the ends of the large
// length-delimited fields of its one nested message. Stops at anything it
// does not understand (the packet is still written whole).
std::vector<size_t> ColumnEnds(const uint8_t* packet, size_t size) {
  std::vector<size_t> ends;
  const uint8_t* p = packet;
  const uint8_t* end = packet + size;
  uint64_t tag = 0, length = 0;
  if (!ReadVarint(&p, end, &tag) || (tag & 7) != 2 || !ReadVarint(&p, end, &length) ||
      length != static_cast<uint64_t>(end - p))
    return ends;
  while (p < end) {
    if (!ReadVarint(&p, end, &tag)) break;
    uint64_t value = 0;
    if ((tag & 7) == 0) {
      if (!ReadVarint(&p, end, &value)) break;
    } else if ((tag & 7) == 2) {
      if (!ReadVarint(&p, end, &value) || value > static_cast<uint64_t>(end - p)) break;
      p += value;
      if (value >= kSplitColumnBytes) ends.push_back(static_cast<size_t>(p - packet));
    } else {
      break;
    }
  }
  return ends;
}
}  // namespace

OutputPolicy CapturePolicy() {
  OutputPolicy policy;
  policy.mode = 0600;
  return policy;
}

std::unique_ptr<CaptureWriter> CaptureWriter::Create(const std::string& path, std::string* error, int zstd_level,
                                                     const OutputPolicy& policy) {
  std::unique_ptr<OutputFile> output = OutputFile::Create(path, policy, error);
  return output ? Create(std::move(output), error, zstd_level) : nullptr;
}

std::unique_ptr<CaptureWriter> CaptureWriter::Create(std::unique_ptr<OutputFile> output, std::string* error,
                                                     int zstd_level) {
  std::unique_ptr<CaptureWriter> w(new CaptureWriter());
  w->output_ = std::move(output);
  w->file_ = w->output_->stream();
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_compressionLevel, zstd_level);
  // At the fast levels, a match-finder table of 4 Ki entries instead of 16 Ki:
  // columns of varints hold few long matches, and the smaller table stays in
  // L1/L2. Re-compressing a benchmark capture at level 1: 7% less time,
  // 0.2% fewer bytes (8 runs each).
  if (zstd_level <= 1) ZSTD_CCtx_setParameter(cctx, ZSTD_c_hashLog, 12);
  ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1);
  w->cctx_ = cctx;
  w->out_.resize(ZSTD_CStreamOutSize());
  uint8_t header[kHeaderBytes];
  memcpy(header, kCaptureMagic, sizeof(kCaptureMagic));
  for (int i = 0; i < 4; ++i) header[sizeof(kCaptureMagic) + i] = static_cast<uint8_t>(kCaptureVersion >> (8 * i));
  // On disk, under its name, at once: a live viewer may open the file before
  // the first record is flushed, and must find a capture with no records
  // yet, not a file too short to be one. A file it replaces is replaced only
  // now, by one that holds at least this.
  if (!w->output_->Write(header, sizeof(header), error) || !w->output_->MoveIntoPlace(error)) return nullptr;
  w->bytes_written_ = w->flushed_bytes_ = sizeof(header);
  return w;
}

CaptureWriter::~CaptureWriter() {
  if (file_) Close();
}

bool CaptureWriter::Fail(const std::string& why) {
  if (error_.empty()) error_ = why;
  // Back to the end of the last complete frame: the unwritten rest of this
  // one is dropped from the stdio buffer, its written part cut off, and the
  // compressor starts a new frame there.
  __fpurge(file_);
  if (ftruncate(fileno(file_), static_cast<off_t>(flushed_bytes_)) == 0 &&
      fseeko(file_, static_cast<off_t>(flushed_bytes_), SEEK_SET) == 0) {
    clearerr(file_);
    ZSTD_CCtx_reset(static_cast<ZSTD_CCtx*>(cctx_), ZSTD_reset_session_only);
    bytes_written_ = flushed_bytes_;
    records_ = flushed_records_;
    frame_open_ = false;
  }
  return false;
}

bool CaptureWriter::Compress(const void* data, size_t size, int mode) {
  if (!file_) return false;
  auto* cctx = static_cast<ZSTD_CCtx*>(cctx_);
  ZSTD_inBuffer in{data, size, 0};
  for (;;) {
    ZSTD_outBuffer out{out_.data(), out_.size(), 0};
    size_t remaining = ZSTD_compressStream2(cctx, &out, &in, static_cast<ZSTD_EndDirective>(mode));
    if (ZSTD_isError(remaining)) return Fail(std::string("zstd: ") + ZSTD_getErrorName(remaining));
    std::string why;
    if (out.pos && !output_->Write(out_.data(), out.pos, &why)) return Fail(why);
    bytes_written_ += out.pos;
    bool done = mode == ZSTD_e_continue ? in.pos == in.size : remaining == 0;
    if (done) return true;
  }
}

bool CaptureWriter::Append(uint32_t stream, const void* packet, size_t size) {
  uint8_t prefix[2 * kMaxVarintBytes];
  uint8_t* p = WriteVarint(prefix, stream);
  p = WriteVarint(p, size);
  ++records_;
  frame_open_ = true;
  if (!Compress(prefix, static_cast<size_t>(p - prefix), ZSTD_e_continue)) return false;
  const auto* bytes = static_cast<const uint8_t*>(packet);
  size_t done = 0;
  if (size >= kSplitRecordBytes) {
    for (size_t column_end : ColumnEnds(bytes, size)) {
      if (!Compress(bytes + done, column_end - done, ZSTD_e_flush)) return false;
      done = column_end;
    }
  }
  return Compress(bytes + done, size - done, ZSTD_e_continue);
}

bool CaptureWriter::Flush() {
  if (!file_) return false;
  if (frame_open_ && !Compress(nullptr, 0, ZSTD_e_end)) return false;
  errno = 0;
  if (fflush(file_) != 0) return Fail(output_->WriteError());
  frame_open_ = false;
  flushed_bytes_ = bytes_written_;
  flushed_records_ = records_;
  return true;
}

bool CaptureWriter::Close() {
  if (!file_) return error_.empty();
  // A capture with no records still ends with a (empty) frame: a file that
  // stops right after its header was cut short.
  if (bytes_written_ == kHeaderBytes) frame_open_ = true;
  bool ok = Flush();
  std::string why;
  file_ = nullptr;  // the stream is closed by Commit, failed or not
  if (!output_->Commit(&why)) {
    if (error_.empty()) error_ = why;
    ok = false;
  }
  ZSTD_freeCCtx(static_cast<ZSTD_CCtx*>(cctx_));
  cctx_ = nullptr;
  return ok;
}

std::unique_ptr<CaptureReader> CaptureReader::Open(const std::string& path, std::string* error) {
  FILE* file = fopen(path.c_str(), "rb");
  if (!file) {
    *error = "cannot open " + path + ": " + strerror(errno);
    return nullptr;
  }
  return Start(file, path, error);
}

std::unique_ptr<CaptureReader> CaptureReader::OpenMemory(const void* data, size_t size, const std::string& name,
                                                         std::string* error) {
  // fmemopen refuses an empty buffer; an empty capture has no header anyway.
  FILE* file = size ? fmemopen(const_cast<void*>(data), size, "rb") : nullptr;
  if (!file) {
    *error = name + " is not a memframe capture (bad magic)";
    return nullptr;
  }
  return Start(file, name, error);
}

std::unique_ptr<CaptureReader> CaptureReader::Start(FILE* file, const std::string& name, std::string* error) {
  std::unique_ptr<CaptureReader> r(new CaptureReader());
  r->file_ = file;
  if (fseek(r->file_, 0, SEEK_END) == 0) {
    long size = ftell(r->file_);
    r->file_size_ = size > 0 ? static_cast<uint64_t>(size) : 0;
    fseek(r->file_, 0, SEEK_SET);
  }
  uint8_t header[kHeaderBytes];
  if (fread(header, 1, sizeof(header), r->file_) != sizeof(header) ||
      memcmp(header, kCaptureMagic, sizeof(kCaptureMagic)) != 0) {
    *error = name + " is not a memframe capture (bad magic)";
    return nullptr;
  }
  uint32_t version = 0;
  for (int i = 0; i < 4; ++i) version |= static_cast<uint32_t>(header[sizeof(kCaptureMagic) + i]) << (8 * i);
  if (version != kCaptureVersion) {
    *error = name + " has capture format version " + std::to_string(version) + "; this build reads version " +
             std::to_string(kCaptureVersion);
    return nullptr;
  }
  r->bytes_read_ = sizeof(header);
  r->dctx_ = ZSTD_createDCtx();
  r->in_.resize(ZSTD_DStreamInSize());
  return r;
}

CaptureReader::~CaptureReader() {
  if (file_) fclose(file_);
  ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_));
}

bool CaptureReader::Fill(size_t need) {
  auto* dctx = static_cast<ZSTD_DCtx*>(dctx_);
  while (buf_.size() - buf_pos_ < need) {
    if (buf_pos_ > (1u << 20)) {  // compact the consumed prefix
      buf_.erase(buf_.begin(), buf_.begin() + static_cast<long>(buf_pos_));
      buf_pos_ = 0;
    }
    // A call that filled its whole output may hold more output back even
    // with no input left: ask again before reading (or giving up at the end
    // of a file that is still being written, as a live viewer reads it).
    if (in_pos_ == in_size_ && !output_pending_) {
      if (eof_) return false;
      in_size_ = fread(in_.data(), 1, in_.size(), file_);
      in_pos_ = 0;
      bytes_read_ += in_size_;
      if (in_size_ == 0) {
        eof_ = true;
        return false;
      }
    }
    size_t old = buf_.size();
    size_t chunk = ZSTD_DStreamOutSize();
    buf_.resize(old + chunk);
    ZSTD_inBuffer in{in_.data(), in_size_, in_pos_};
    ZSTD_outBuffer out{buf_.data() + old, chunk, 0};
    size_t ret = ZSTD_decompressStream(dctx, &out, &in);
    in_pos_ = in.pos;
    output_pending_ = out.pos == chunk;
    buf_.resize(old + out.pos);
    if (ZSTD_isError(ret)) {
      error_ = std::string("capture is corrupt (zstd: ") + ZSTD_getErrorName(ret) + ")";
      eof_ = true;
      in_pos_ = in_size_;
      return false;
    }
    frame_complete_ = ret == 0;
  }
  return true;
}

bool CaptureReader::Next(CaptureRecord* record) {
  if (!error_.empty()) return false;
  // Varint prefix: at most 2 * 10 bytes; read what is there.
  Fill(2 * kMaxVarintBytes);
  const uint8_t* p = buf_.data() + buf_pos_;
  const uint8_t* end = buf_.data() + buf_.size();
  if (p == end) {
    // A recorder always writes at least its opening record, so a file that
    // ends right after the header was cut as well.
    bool nothing_after_header = bytes_read_ == kHeaderBytes;
    if (error_.empty() && (!frame_complete_ || nothing_after_header))
      error_ = "capture is truncated (the recorder did not finish writing it)";
    return false;
  }
  uint64_t stream = 0, size = 0;
  if (!ReadVarint(&p, end, &stream) || !ReadVarint(&p, end, &size)) {
    if (error_.empty()) error_ = "capture is truncated inside a record header";
    return false;
  }
  if (size > kMaxPacketBytes || stream > UINT32_MAX) {
    error_ = "capture is corrupt: record of " + std::to_string(size) + " bytes";
    return false;
  }
  size_t header = static_cast<size_t>(p - (buf_.data() + buf_pos_));
  if (!Fill(header + size)) {
    if (error_.empty()) error_ = "capture is truncated inside a record";
    return false;
  }
  const uint8_t* body = buf_.data() + buf_pos_ + header;
  record->stream = static_cast<uint32_t>(stream);
  record->packet.assign(body, body + size);
  buf_pos_ += header + size;
  return true;
}

}  // namespace memframe::wire
