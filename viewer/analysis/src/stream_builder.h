// Accumulates the packets of one agent stream into a Stream.
//
// Events are kept per thread while the capture is read (each thread's
// batches arrive in its own order) and merged into the global order once, in
// Finish (thread_merge.h).
#pragma once

#include <memory>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "memframe.pb.h"
#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/event_codec.h"
#include "event_streaming.h"
#include "thread_merge.h"

namespace memframe::analysis {

class StreamBuilder {
 public:
  explicit StreamBuilder(uint32_t stream_id);

  // Adds one packet; unless kOk, *error says why and nothing of it is kept.
  CaptureBuilder::Status Add(const wire::Packet& packet, std::string* error);

  // Recorder snapshots become MARKER events named after them, placed by
  // time among this stream's events (its clock maps CLOCK_MONOTONIC to
  // ticks) and counted in the frame they fall in. Call before Finish.
  void AddSnapshotMarkers(const std::vector<RecorderSnapshot>& snapshots);

  // Passes the events to `sink` in global order as they are read instead
  // of keeping them (event_streaming.h); Finish leaves Stream::events
  // empty. Call before the first packet.
  void StreamEventsTo(EventSink* sink);
  // After Finish: whether `sink` got the events in the loader's order; if
  // not, what it got is of no use and the capture must be loaded whole.
  bool streamed_in_order() const { return streamed_in_order_; }

  uint64_t event_count() const { return event_count_; }
  // Puts the events in global order and hands the stream over. `progress`
  // (may be empty) hears how many events were merged so far.
  Stream Finish(const MergeProgress& progress = {});
  // What Capture::other_streams says about a stream that is not analysed;
  // cheap (no merge).
  StreamSummary Summary() const;

 private:
  uint16_t ThreadIndex(uint32_t tid);
  void AddModules(const wire::ModuleMap& map);
  void AddSymbols(const wire::SymbolDefs& defs);
  CaptureBuilder::Status AddGpuEvents(const wire::GpuEvents& batch, std::string* error);

  Stream stream_;
  std::unordered_map<uint32_t, uint16_t> thread_index_;
  std::vector<ThreadRun> runs_;        // per thread index
  std::vector<uint64_t> last_ticks_;  // per thread index: its latest tick
  std::unique_ptr<wire::EventBatchDecoder> decoder_;  // from the Hello: the stream's protocol version
  std::vector<Event> decoded_;   // one batch, reused
  uint64_t batches_ = 0;         // arrival number of the next batch
  uint64_t event_count_ = 0;
  std::set<std::pair<std::string, uint64_t>> module_keys_;
  std::vector<uint32_t> snapshot_marker_ids_;  // AddSnapshotMarkers' ids, ascending
  std::unique_ptr<EventStreaming> streaming_;
  bool streamed_in_order_ = false;
};

}  // namespace memframe::analysis
