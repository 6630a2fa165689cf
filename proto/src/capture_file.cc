#include "memframe/capture_file.h"

#include <stdio_ext.h>
#include <unistd.h>
// ZSTD_getFrameHeader (each frame must carry a checksum) is in the
// experimental part of the API; Debian's libzstd exports it.
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>

#include <cerrno>
#include <cstring>

#include "memframe/format.h"
#include "memframe/regular_file.h"
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

// Checks (FORMAT.md): the writer ends a zstd frame, with its checksum, at
// every flush and at the first record boundary past kFrameBytes, so that a
// reader can check every frame before it uses a record of it, holding at
// most kMaxUncheckedBytes. A frame larger than that comes from a writer that
// made one frame of the whole capture: its records are used unchecked.
constexpr uint64_t kFrameBytes = 4u << 20;
constexpr uint64_t kMaxUncheckedBytes = kMaxPacketBytes + 2 * kFrameBytes;

// What a file can hold: zstd turns a few bytes into megabytes of repeated
// data, so a crafted capture of kilobytes could claim gigabytes of stacks,
// names and events (an event costs the analysis ~100 bytes, and a batch
// codes one in a few). Real captures decompress to 2-5 times their size
// (tests/fuzz/corpus, the golden captures), a perfectly regular synthetic
// stream to hundreds; a reader refuses to go past kMaxExpansion times the
// compressed bytes read, plus kExpansionSlack for the first records. The
// crafted captures that claim gigabytes expand thousands of times.
constexpr uint64_t kMaxExpansion = 256;
constexpr uint64_t kExpansionSlack = 1u << 20;

// A writer that checks frames opens the file with an empty frame and closes
// it with another (FORMAT.md, "Checks"): a reader then knows that frames
// are checked and whether the file was cut at a frame's end. ZSTD_compress2
// starts a frame of its own, so it is called only between frames.
constexpr size_t kEmptyFrameCapacity = 32;
size_t EmptyFrame(void* cctx, uint8_t* out) {
  return ZSTD_compress2(static_cast<ZSTD_CCtx*>(cctx), out, kEmptyFrameCapacity, "", 0);
}

// Complete records in [data, end): what a damaged frame had decoded.
uint64_t CountRecords(const uint8_t* data, const uint8_t* end) {
  uint64_t count = 0, stream = 0, size = 0;
  while (ReadVarint(&data, end, &stream) && ReadVarint(&data, end, &size) &&
         size <= static_cast<uint64_t>(end - data)) {
    data += size;
    ++count;
  }
  return count;
}

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
  uint8_t header[kHeaderBytes + kEmptyFrameCapacity];
  memcpy(header, kCaptureMagic, sizeof(kCaptureMagic));
  for (int i = 0; i < 4; ++i) header[sizeof(kCaptureMagic) + i] = static_cast<uint8_t>(kCaptureVersion >> (8 * i));
  const size_t opening = EmptyFrame(cctx, header + kHeaderBytes);
  if (ZSTD_isError(opening)) {
    *error = std::string("zstd: ") + ZSTD_getErrorName(opening);
    return nullptr;
  }
  // On disk, under its name, at once: a live viewer may open the file before
  // the first record is flushed, and must find a capture with no records
  // yet, not a file too short to be one. A file it replaces is replaced only
  // now, by one that holds at least this.
  if (!w->output_->Write(header, kHeaderBytes + opening, error) || !w->output_->MoveIntoPlace(error)) return nullptr;
  w->bytes_written_ = w->flushed_bytes_ = kHeaderBytes + opening;
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
  if (tap_) tap_(stream, packet, size);
  uint8_t prefix[2 * kMaxVarintBytes];
  uint8_t* p = WriteVarint(prefix, stream);
  p = WriteVarint(p, size);
  ++records_;
  frame_open_ = true;
  frame_bytes_ += static_cast<uint64_t>(p - prefix) + size;
  if (!Compress(prefix, static_cast<size_t>(p - prefix), ZSTD_e_continue)) return false;
  const auto* bytes = static_cast<const uint8_t*>(packet);
  size_t done = 0;
  if (size >= kSplitRecordBytes) {
    for (size_t column_end : ColumnEnds(bytes, size)) {
      if (!Compress(bytes + done, column_end - done, ZSTD_e_flush)) return false;
      done = column_end;
    }
  }
  if (!Compress(bytes + done, size - done, ZSTD_e_continue)) return false;
  return frame_bytes_ < kFrameBytes || Flush();
}

bool CaptureWriter::Flush() {
  if (!file_) return false;
  if (frame_open_ && !Compress(nullptr, 0, ZSTD_e_end)) return false;
  errno = 0;
  if (fflush(file_) != 0) return Fail(output_->WriteError());
  frame_open_ = false;
  frame_bytes_ = 0;
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
  // The closing empty frame: the file is complete.
  uint8_t closing[kEmptyFrameCapacity];
  size_t n = ok ? EmptyFrame(cctx_, closing) : 0;
  std::string problem;
  if (ok && (ZSTD_isError(n) || !output_->Write(closing, n, &problem))) {
    ok = Fail(ZSTD_isError(n) ? std::string("zstd: ") + ZSTD_getErrorName(n) : problem);
  } else if (ok) {
    bytes_written_ += n;
  }
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
  // Not fopen: a path that names a FIFO would block here for good.
  std::string why;
  int fd = OpenRegularFile(path, &why);
  FILE* file = fd >= 0 ? fdopen(fd, "rb") : nullptr;
  if (!file) {
    if (fd >= 0) close(fd);
    *error = "cannot open " + (why.empty() ? path + ": " + strerror(errno) : why);
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
  r->in_base_ = r->frame_start_ = sizeof(header);
  r->dctx_ = ZSTD_createDCtx();
  r->in_.resize(ZSTD_DStreamInSize());
  return r;
}

CaptureReader::~CaptureReader() {
  if (file_) fclose(file_);
  ZSTD_freeDCtx(static_cast<ZSTD_DCtx*>(dctx_));
}

bool CaptureReader::ReadInput() {
  if (eof_) return false;
  if (in_pos_ > 0) {
    memmove(in_.data(), in_.data() + in_pos_, in_size_ - in_pos_);
    in_base_ += in_pos_;
    in_size_ -= in_pos_;
    in_pos_ = 0;
  }
  size_t n = fread(in_.data() + in_size_, 1, in_.size() - in_size_, file_);
  in_size_ += n;
  bytes_read_ += n;
  if (n == 0) eof_ = true;
  return n > 0;
}

void CaptureReader::Damaged(const std::string& what) {
  // Nothing of the damaged frame is used; the records after it cannot be
  // decoded without it (a stream's batches refer to earlier ones).
  if (unchecked_frame_) {
    StopReading("capture is damaged at byte offset " + std::to_string(InputOffset()) + " of " +
                std::to_string(file_size_) + " (" + what + "), in a block too large to check before use (" +
                "written before blocks were kept small): the rest of the file was dropped");
  } else {
    uint64_t records = CountRecords(buf_.data() + checked_end_, buf_.data() + buf_.size());
    StopReading("capture is damaged in the block at byte offset " + std::to_string(frame_start_) + " of " +
                std::to_string(file_size_) + " (" + what + "): its " + std::to_string(records) +
                (records == 1 ? " record" : " records") + " and the rest of the file were dropped");
  }
}

void CaptureReader::StopReading(const std::string& damage) {
  damage_ = damage;
  buf_.resize(checked_end_);
  eof_ = true;
  in_pos_ = in_size_;
}

// A frame must be a zstd frame with a checksum: a skippable frame would hide
// records, and a frame without a checksum (a flipped flag bit) cannot be
// checked.
bool CaptureReader::CheckFrameHeader() {
  ZSTD_frameHeader header;
  for (;;) {
    size_t ret = ZSTD_getFrameHeader(&header, in_.data() + in_pos_, in_size_ - in_pos_);
    if (ret == 0) break;
    if (ZSTD_isError(ret)) {
      Damaged(std::string("zstd: ") + ZSTD_getErrorName(ret));
      return false;
    }
    if (!ReadInput()) {  // a frame header cut short: truncated
      frame_complete_ = false;
      return false;
    }
  }
  if (header.frameType != ZSTD_frame || !header.checksumFlag) {
    Damaged(header.frameType != ZSTD_frame ? "a skippable frame" : "a zstd frame without a checksum");
    return false;
  }
  return true;
}

bool CaptureReader::Fill(size_t need) {
  auto* dctx = static_cast<ZSTD_DCtx*>(dctx_);
  while (checked_end_ - buf_pos_ < need) {
    if (!damage_.empty()) return false;
    if (buf_pos_ > (1u << 20)) {  // compact the consumed prefix
      buf_.erase(buf_.begin(), buf_.begin() + static_cast<long>(buf_pos_));
      checked_end_ -= buf_pos_;
      buf_pos_ = 0;
    }
    // A call that filled its whole output may hold more output back even
    // with no input left: ask again before reading (or giving up at the end
    // of a file that is still being written, as a live viewer reads it).
    if (in_pos_ == in_size_ && !output_pending_ && !ReadInput()) {
      // The file ends inside a frame (a recorder that was killed): what it
      // decoded cannot be checked, but nothing says it is wrong; Next says
      // the capture is truncated.
      checked_end_ = buf_.size();
      return checked_end_ - buf_pos_ >= need;
    }
    if (frame_complete_ && !output_pending_) {
      frame_start_ = InputOffset();
      frame_output_start_ = decompressed_;
      // A writer that opened with an empty frame wrote its last one empty
      // (Checks): a frame after that is not this capture's.
      if (opened_empty_ && frames_ >= 2 && last_frame_empty_) {
        StopReading("capture goes on past its closing block, at byte offset " + std::to_string(frame_start_) +
                    " of " + std::to_string(file_size_) +
                    " (a capture's body appended to it again?): the rest of the file was dropped");
        return false;
      }
      if (!CheckFrameHeader()) {
        checked_end_ = buf_.size();
        return checked_end_ - buf_pos_ >= need;
      }
    }
    // Never more than the file can hold (kMaxExpansion).
    if (decompressed_ > kExpansionSlack + kMaxExpansion * InputOffset()) {
      Damaged("its first " + std::to_string(InputOffset()) + " bytes decompress to " + std::to_string(decompressed_) +
              ", more than " + std::to_string(kMaxExpansion) + " times as many: damaged or crafted");
      return false;
    }
    size_t old = buf_.size();
    size_t chunk = ZSTD_DStreamOutSize();
    buf_.resize(old + chunk);
    ZSTD_inBuffer in{in_.data(), in_size_, in_pos_};
    ZSTD_outBuffer out{buf_.data() + old, chunk, 0};
    size_t ret = ZSTD_decompressStream(dctx, &out, &in);
    in_pos_ = in.pos;
    buf_.resize(old + out.pos);
    decompressed_ += out.pos;
    if (ZSTD_isError(ret)) {
      Damaged(std::string("zstd: ") + ZSTD_getErrorName(ret));
      return false;
    }
    output_pending_ = ret != 0 && out.pos == chunk;
    frame_complete_ = ret == 0;
    if (frame_complete_) {
      last_frame_empty_ = decompressed_ == frame_output_start_;
      if (frames_++ == 0) opened_empty_ = last_frame_empty_;
    }
    if (frame_complete_ || unchecked_frame_ || buf_.size() - checked_end_ > kMaxUncheckedBytes) {
      checked_end_ = buf_.size();
      unchecked_frame_ = !frame_complete_;
    }
  }
  return true;
}

bool CaptureReader::Next(CaptureRecord* record) {
  if (!error_.empty()) return false;
  // Varint prefix: at most 2 * 10 bytes; read what is there.
  Fill(2 * kMaxVarintBytes);
  const uint8_t* p = buf_.data() + buf_pos_;
  const uint8_t* end = buf_.data() + checked_end_;
  if (p == end) {
    // A recorder always writes at least its opening record, so a file that
    // ends right after the header was cut as well.
    bool nothing_after_header = bytes_read_ == kHeaderBytes;
    // A writer that opened with an empty frame closes with one too.
    bool unclosed = opened_empty_ && !(frames_ >= 2 && last_frame_empty_);
    if (!damage_.empty())
      error_ = damage_;
    else if (!frame_complete_ || nothing_after_header || unclosed)
      error_ = "capture is truncated (the recorder did not finish writing it)";
    return false;
  }
  uint64_t stream = 0, size = 0;
  if (!ReadVarint(&p, end, &stream) || !ReadVarint(&p, end, &size)) {
    error_ = damage_.empty() ? "capture is truncated inside a record header" : damage_;
    return false;
  }
  if (size > kMaxPacketBytes || stream > UINT32_MAX) {
    error_ = "capture is corrupt: record of " + std::to_string(size) + " bytes";
    return false;
  }
  size_t header = static_cast<size_t>(p - (buf_.data() + buf_pos_));
  if (!Fill(header + size)) {
    error_ = damage_.empty() ? "capture is truncated inside a record" : damage_;
    return false;
  }
  const uint8_t* body = buf_.data() + buf_pos_ + header;
  record->stream = static_cast<uint32_t>(stream);
  record->packet.assign(body, body + size);
  buf_pos_ += header + size;
  return true;
}

}  // namespace memframe::wire
