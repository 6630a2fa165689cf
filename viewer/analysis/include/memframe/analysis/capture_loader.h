// Reading a capture into the model.
//
// Split in two so that other sources can feed the same model: a PacketSource
// yields (stream, packet bytes) records — from a file today, later from a
// live socket or a seeking reader with checkpoints — and a CaptureBuilder
// turns records into a Capture.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/event_sink.h"
#include "memframe/analysis/load_progress.h"

namespace memframe::analysis {

class PacketSource {
 public:
  virtual ~PacketSource() = default;
  // Reads the next record. False at the end or at the first damage; error()
  // is empty for a clean end and says what is wrong otherwise.
  virtual bool Next(uint32_t* stream, std::vector<uint8_t>* packet) = 0;
  virtual std::string error() const = 0;
  // Input consumed so far and in all, for progress bars (0 when unknown).
  virtual uint64_t bytes_read() const { return 0; }
  virtual uint64_t total_bytes() const { return 0; }
};

// A capture file (proto/FORMAT.md). Null with *error set when the file cannot
// be opened or is not a capture of a version this build reads.
std::unique_ptr<PacketSource> OpenCaptureFile(const std::string& path, std::string* error);
// The same over a capture held in memory (the fuzzer); `data` must outlive
// the source. `name` stands for the path in messages.
std::unique_ptr<PacketSource> OpenCaptureMemory(const void* data, size_t size, const std::string& name,
                                                std::string* error);

class StreamBuilder;

class CaptureBuilder {
 public:
  explicit CaptureBuilder(std::string path);
  ~CaptureBuilder();

  enum class Status {
    kOk,
    kDamaged,  // unparsable packet, corrupt event batch: stop, keep what came before
    kRefused,  // a stream of another protocol version: the capture cannot be read
  };
  // Adds one record. Unless kOk, *error says why and nothing of the record
  // was kept.
  Status Add(uint32_t stream, const uint8_t* data, size_t size, std::string* error);

  // Picks the stream with the most events as Capture::main, puts its events
  // in global order and returns the model. Call once. `progress` (may be
  // empty) hears the ordering phase.
  Capture Finish(std::string damage, const LoadProgressFn& progress = {});

  // Each stream's events go to the sink `sink_for(stream id)` gives, in
  // global order as they are read, instead of into Stream::events
  // (summary_load.h). Call before the first Add.
  void StreamEventsTo(std::function<EventSink*(uint32_t stream)> sink_for) { sink_for_ = std::move(sink_for); }
  // After Finish: whether the main stream's sink got exactly the events, in
  // the order, that a whole load gives (else load the capture whole).
  bool main_streamed_in_order() const { return main_streamed_in_order_; }

 private:
  std::string path_;
  std::function<EventSink*(uint32_t)> sink_for_;
  bool main_streamed_in_order_ = false;
  RecorderInfo recorder_;
  std::map<uint32_t, std::unique_ptr<StreamBuilder>> streams_;
};

// Reads the whole capture at `path`. Returns false with *error when it cannot
// be read as a capture at all (missing, not a capture, other version, another
// protocol). A damaged file still loads: Capture::damage says what is wrong
// and the model holds everything before it.
// `progress` (may be empty) hears the reading and ordering phases.
bool LoadCapture(const std::string& path, Capture* capture, std::string* error,
                 const LoadProgressFn& progress = {});
// The same from an open source; `name` becomes Capture::path.
bool LoadCapture(PacketSource& source, const std::string& name, Capture* capture, std::string* error,
                 const LoadProgressFn& progress = {});
// The same through a builder set up by the caller (CaptureBuilder::StreamEventsTo).
bool LoadCapture(const std::string& path, CaptureBuilder& builder, Capture* capture, std::string* error,
                 const LoadProgressFn& progress = {});
bool LoadCapture(PacketSource& source, CaptureBuilder& builder, const std::string& name, Capture* capture,
                 std::string* error, const LoadProgressFn& progress = {});

// What to say when memory ran out (std::bad_alloc) while `what` was read or
// analysed: a capture can be larger than the machine, and a damaged or
// crafted one may claim more than its reader bounds.
std::string OutOfMemoryError(const std::string& what);

}  // namespace memframe::analysis
