// BuildTimeline (frame_timeline.h): one replay for the frames' times, their
// presenting thread and the mapped bytes at their ends.
#include "memframe/analysis/frame_timeline.h"

#include <algorithm>
#include <map>

#include "memframe/analysis/event_pass.h"
#include "memframe/analysis/live_set_at.h"
#include "memframe/analysis/mapped_regions.h"

namespace memframe::analysis {

namespace {

constexpr uint64_t kNone = UINT64_MAX;

struct RowTimes {
  uint64_t first_ticks = kNone;
  uint64_t last_ticks = 0;
  uint64_t end_ticks = kNone;  // its FRAME_END
  uint16_t end_thread = 0;
  bool ended_by_game = false;  // end_thread is a game thread's (not memframe's time slices)
  bool has_mapped = false;
  uint64_t mapped_bytes = 0;  // after the last MAP/UNMAP of the frame
};

class TimelinePass : public EventPass {
 public:
  TimelinePass(const Stream& stream, const FrameTable& table)
      : stream_(stream), table_(table), rows_(table.frames.size()) {}

  void OnEvent(const Event& e) override {
    RowTimes* row = Row(e.kind() == EventKind::kFrameEnd ? e.size : e.frame);
    if (row == nullptr) return;
    row->first_ticks = std::min(row->first_ticks, e.ticks);
    row->last_ticks = std::max(row->last_ticks, e.ticks);
    switch (e.kind()) {
      case EventKind::kFrameEnd:
        if (row->end_ticks == kNone) {
          row->end_ticks = e.ticks;
          if (IsGameThread(e.thread)) {
            row->end_thread = e.thread;
            row->ended_by_game = true;
            ++ends_by_thread_[e.thread];
          }
        }
        break;
      case EventKind::kMap:
        mapped_.Map(e);
        Mapped(row);
        break;
      case EventKind::kUnmap:
        mapped_.Unmap(e.address, e.size);
        Mapped(row);
        break;
      default:
        break;
    }
  }

  const std::vector<RowTimes>& rows() const { return rows_; }
  // The game thread that ended the most frames; when none did (memframe's
  // writer ends time slices), the main thread, else the first game thread.
  uint16_t PresentingThread() const {
    uint16_t best = 0;
    uint64_t most = 0;
    for (auto [thread, count] : ends_by_thread_)
      if (count > most) best = thread, most = count;
    if (most) return best;
    for (size_t i = 0; i < stream_.threads.size(); ++i)
      if (stream_.threads[i].tid == stream_.process.pid && IsGameThread(i)) return static_cast<uint16_t>(i);
    for (size_t i = 0; i < stream_.threads.size(); ++i)
      if (IsGameThread(i)) return static_cast<uint16_t>(i);
    return 0;
  }

 private:
  bool IsGameThread(size_t thread) const { return thread < stream_.threads.size() && !stream_.threads[thread].memframe; }

  RowTimes* Row(uint64_t frame) {
    size_t i = table_.LowerBound(frame);
    return i < rows_.size() && table_.frames[i].frame == frame ? &rows_[i] : nullptr;
  }
  void Mapped(RowTimes* row) {
    row->has_mapped = true;
    row->mapped_bytes = mapped_.mapped_bytes();
  }

  const Stream& stream_;
  const FrameTable& table_;
  std::vector<RowTimes> rows_;
  MappedRegions mapped_;
  std::map<uint16_t, uint64_t> ends_by_thread_;
};

uint32_t TidOf(const Stream& stream, uint16_t thread) {
  return thread < stream.threads.size() ? stream.threads[thread].tid : 0;
}

}  // namespace

Timeline BuildTimeline(const Stream& stream, const FrameTable& table) {
  TimelinePass pass(stream, table);
  Replay(stream, {&pass});
  Timeline t;
  const uint16_t presenting = pass.PresentingThread();
  t.presenting_tid = TidOf(stream, presenting);
  int64_t previous_end = stream.events.empty() ? 0 : stream.clock.ToNs(stream.events.front().ticks);
  uint64_t mapped = 0;
  for (size_t i = 0; i < table.frames.size(); ++i) {
    const RowTimes& r = pass.rows()[i];
    FrameSpan span;
    span.frame = table.frames[i].frame;
    span.start_ns = previous_end;
    const uint64_t end_ticks = r.end_ticks != kNone ? r.end_ticks : r.last_ticks;
    span.end_ns = std::max(previous_end, stream.clock.ToNs(end_ticks));
    span.tid = TidOf(stream, r.ended_by_game ? r.end_thread : presenting);
    if (r.has_mapped) mapped = r.mapped_bytes;
    span.mapped_bytes = mapped;
    previous_end = span.end_ns;
    t.frames.push_back(span);
  }
  for (const MarkerEvent& m : FindMarkerEvents(stream)) {
    const Event e = stream.events[m.position];
    t.markers.push_back({m.name, m.frame, stream.clock.ToNs(m.ticks), TidOf(stream, e.thread), m.position});
  }
  for (const Phase& p : FindPhases(table)) {
    auto [first, end] = table.RowsIn(p.frames);
    if (first == end) continue;
    t.phases.push_back({p, t.frames[first].start_ns, t.frames[end - 1].end_ns});
  }
  return t;
}

}  // namespace memframe::analysis
