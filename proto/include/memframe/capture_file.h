// Capture files: the recorder appends (stream, packet) records; readers get
// them back in order. zstd-compressed; see proto/FORMAT.md for the layout.
#pragma once

#include <cstdint>
#include <cstdio>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "memframe/output_file.h"

namespace memframe::wire {

// How captures are created unless a caller says otherwise: private to the
// user (they hold the program's command line and paths), replacing a file
// already there (`memframe run` refuses that without --force).
OutputPolicy CapturePolicy();

class CaptureWriter {
 public:
  // Creates the capture at `path` as `policy` allows, with its header on
  // disk; on failure returns null and sets *error.
  static std::unique_ptr<CaptureWriter> Create(const std::string& path, std::string* error, int zstd_level = 3,
                                               const OutputPolicy& policy = CapturePolicy());
  // The same on an output already opened (tests inject failing sinks).
  static std::unique_ptr<CaptureWriter> Create(std::unique_ptr<OutputFile> output, std::string* error,
                                               int zstd_level = 3);
  ~CaptureWriter();

  // Appends one record: the packet bytes (a serialized Packet) of `stream`.
  // Stream 0 is the recorder's own; agent connections are numbered from 1.
  //
  // A failed write (disk full) sets error() and cuts the file back to the
  // end of the last flush, so that everything flushed reads back as a
  // complete capture; a later Append starts again from there (and may fail
  // again, if the disk is still full).
  bool Append(uint32_t stream, const void* packet, size_t size);
  // Hears every record Append is given, before it is written (`memframe
  // run` keeps its summary as it records: injector/live_summary.h).
  using RecordTap = std::function<void(uint32_t stream, const void* packet, size_t size)>;
  void SetRecordTap(RecordTap tap) { tap_ = std::move(tap); }
  // Ends the zstd frame and pushes it to the file, so that a crash of the
  // recorder or a later failed write loses nothing appended before the flush.
  bool Flush();
  // Ends the zstd frame and closes the file.
  bool Close();

  uint64_t bytes_written() const { return bytes_written_; }
  uint64_t records() const { return records_; }
  // The first failure, "" if none.
  const std::string& error() const { return error_; }
  const std::string& path() const { return output_->path(); }

 private:
  CaptureWriter() = default;
  bool Compress(const void* data, size_t size, int mode);
  bool Fail(const std::string& why);  // records it, cuts back; returns false

  std::unique_ptr<OutputFile> output_;
  FILE* file_ = nullptr;  // output_'s stream while open
  bool frame_open_ = false;     // records appended since the last frame end
  uint64_t frame_bytes_ = 0;    // their uncompressed bytes
  uint64_t flushed_bytes_ = 0;  // the file's size at the last frame end
  uint64_t flushed_records_ = 0;
  void* cctx_ = nullptr;  // ZSTD_CCtx
  std::vector<uint8_t> out_;
  uint64_t bytes_written_ = 0;
  uint64_t records_ = 0;
  RecordTap tap_;
  std::string error_;
};

struct CaptureRecord {
  uint32_t stream = 0;
  std::vector<uint8_t> packet;  // a serialized Packet
};

class CaptureReader {
 public:
  static std::unique_ptr<CaptureReader> Open(const std::string& path, std::string* error);
  // A capture held in memory (the fuzzer, tests); `data` must outlive the
  // reader. `name` stands for the path in messages.
  static std::unique_ptr<CaptureReader> OpenMemory(const void* data, size_t size, const std::string& name,
                                                   std::string* error);
  ~CaptureReader();

  // Reads the next record. Returns false at the end of the file or at the
  // first damage; then error() is empty for a clean end and says what is
  // wrong otherwise (every record before the damage was returned). A record
  // is returned only once the zstd frame holding it passed its checksum
  // (FORMAT.md, "Checks"), but for the unfinished last frame of a truncated
  // file and for frames larger than kMaxUncheckedBytes (captures written
  // before frames were kept small).
  bool Next(CaptureRecord* record);
  const std::string& error() const { return error_; }
  // Compressed bytes consumed so far and the file size, for progress bars.
  uint64_t bytes_read() const { return bytes_read_; }
  uint64_t file_size() const { return file_size_; }

 private:
  CaptureReader() = default;
  static std::unique_ptr<CaptureReader> Start(FILE* file, const std::string& name, std::string* error);
  bool Fill(size_t need);  // ensures `need` checked decompressed bytes are buffered
  bool ReadInput();        // keeps the unread input, appends more from the file
  bool CheckFrameHeader();
  void Damaged(const std::string& what);
  void StopReading(const std::string& damage);  // keeps what was checked, reads no more
  uint64_t InputOffset() const { return in_base_ + in_pos_; }  // file offset of the next compressed byte

  FILE* file_ = nullptr;
  void* dctx_ = nullptr;  // ZSTD_DCtx
  std::vector<uint8_t> in_;
  size_t in_pos_ = 0, in_size_ = 0;
  uint64_t in_base_ = 0;      // file offset of in_[0]
  std::vector<uint8_t> buf_;  // decompressed, not yet consumed
  size_t buf_pos_ = 0;
  size_t checked_end_ = 0;    // buf_ up to here may be used: its frame passed its checksum
  uint64_t frame_start_ = 0;  // file offset of the frame being decompressed
  uint64_t frame_output_start_ = 0;  // decompressed_ when it started
  uint64_t frames_ = 0;              // frames decompressed whole
  bool opened_empty_ = false;        // the first was empty: the writer also ends with one
  bool last_frame_empty_ = false;
  uint64_t decompressed_ = 0;
  bool eof_ = false;
  bool frame_complete_ = true;
  bool output_pending_ = false;  // the last decompression filled its output
  bool unchecked_frame_ = false;  // the frame is too large to check first: used as decoded
  uint64_t bytes_read_ = 0;
  uint64_t file_size_ = 0;
  std::string damage_;  // found ahead of the records still to be returned
  std::string error_;
};

}  // namespace memframe::wire
