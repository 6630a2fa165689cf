#include "memframe/report/capture_notes.h"

#include <algorithm>

#include "memframe/paths.h"
#include "memframe/report/units.h"

namespace memframe::analysis {

std::vector<std::string> CaptureNotes(const Capture& capture, const HeapAnalysis& heap) {
  std::vector<std::string> notes;
  const Stream& s = capture.main;
  // A few are named each; a game that starts a thousand helpers gets one
  // line, not a thousand.
  constexpr size_t kOthersNamed = 3;
  const std::vector<StreamSummary>& others = capture.other_streams;
  if (others.size() <= kOthersNamed) {
    for (const StreamSummary& other : others) {
      notes.push_back("another process was recorded and not analysed: pid " + std::to_string(other.pid) + " " +
                      other.executable + " (" + FormatCount(other.events) + " events)");
    }
  } else {
    uint64_t events = 0;
    for (const StreamSummary& other : others) events += other.events;
    std::string named;
    for (size_t i = 0; i < kOthersNamed; ++i)
      named += (i ? ", pid " : "pid ") + std::to_string(others[i].pid) + " " + others[i].executable;
    notes.push_back(FormatCount(others.size()) + " other processes were recorded and not analysed (" +
                    FormatCount(events) + " events in all): " + named + " and " +
                    FormatCount(others.size() - kOthersNamed) + " more");
  }
  if (std::string own = DescribeOwnAllocator(capture); !own.empty()) notes.push_back(own);
  for (std::string& api : DescribeAllocatorApis(capture)) notes.push_back(std::move(api));
  uint64_t dropped = 0;
  for (const Thread& t : s.threads) dropped += t.dropped;
  if (dropped) notes.push_back("the agent dropped " + FormatCount(dropped) + " events; figures are lower bounds");
  if (uint64_t n = s.end_unrecorded_in_signal_handlers)
    notes.push_back(FormatCount(n) +
                    " allocator calls made in signal handlers that interrupted memframe or a free were not recorded");
  const HeapAnomalies& a = heap.anomalies;
  if (uint64_t n = a.unknown_frees)
    notes.push_back(n == 1 ? "1 free of an unknown block was ignored" : FormatCount(n) + " frees of unknown blocks were ignored");
  if (uint64_t n = a.freed_after_release)
    notes.push_back(n == 1 ? "1 free of a block after its allocator's release was ignored (the game held the block "
                             "past the release; the allocators report lists it)"
                           : FormatCount(n) + " frees of blocks after their allocator's release were ignored (the "
                             "game held them past the release; the allocators report lists them)");
  if (uint64_t n = a.freed_before_attach)
    notes.push_back(FormatCount(n) + (n == 1 ? " free of a block" : " frees of blocks") + " allocated before the " +
                    (s.process.window.present ? "window" : "attach") + " (unknown to memframe) are not counted");
  if (uint64_t n = a.allocs_over_live)
    notes.push_back(Plural(n, "allocation") + " reused a block whose free was not recorded");
  if (!s.clock.calibrated()) notes.push_back("the event clock is not calibrated; times assume 1 tick = 1 ns");
  return notes;
}

const FrameTotalsSeries* MainFrameTotals(const Capture& capture) {
  for (const FrameTotalsSeries& series : capture.recorder.frame_totals)
    if (series.stream == capture.main.stream_id) return &series;
  return nullptr;
}

namespace {

std::string DescribeKeptWindow(const Capture& capture) {
  const KeptWindowInfo& kept = capture.recorder.kept_window;
  const ProcessInfo::WindowStart& window = capture.main.process.window;
  std::string text = "a kept window of the run (--keep-last " + FormatDuration(kept.keep_last_ms * 1000000ull) +
                     (kept.saved_for.empty() ? "" : ", saved at " + kept.saved_for) + "): ";
  if (!window.present) return text + "the whole run so far";
  text += "frames from " + FormatCount(window.first_frame) + " in full, " + FormatCount(window.dropped_events) +
          " events before them dropped";
  if (const FrameTotalsSeries* totals = MainFrameTotals(capture); totals && !totals->allocs.empty())
    text += "; per-frame totals of frames " + FormatCount(totals->first_frame) + "-" +
            FormatCount(totals->first_frame + totals->allocs.size() - 1);
  return text + "; blocks allocated before the window are unknown";
}

}  // namespace

std::string DescribeAttach(const Capture& capture) {
  if (capture.recorder.kept_window.present) return DescribeKeptWindow(capture);
  if (!capture.main.process.attached) return "";
  std::string text = "recording starts at an attach to the running process";
  if (capture.recorder.attach_pause_us)
    text += " (the injection kept a thread from its own code " +
            FormatDuration(capture.recorder.attach_pause_us * 1000ull) + ")";
  return text + "; blocks allocated before it are unknown";
}

namespace {

std::string Joined(const std::vector<std::string>& items, const char* separator) {
  std::string joined;
  for (const std::string& item : items) joined += (joined.empty() ? "" : separator) + item;
  return joined;
}

}  // namespace

std::vector<std::string> DescribeAllocatorApis(const Capture& capture) {
  std::vector<std::string> notes;
  constexpr size_t kNamed = 5;  // the rest are in `report summary --json`
  for (const ProcessInfo::AllocatorApi& api : capture.main.process.allocator_apis) {
    std::vector<std::string> named(api.hooked.begin(), api.hooked.begin() + std::min(kNamed, api.hooked.size()));
    std::string more = api.hooked.size() > kNamed ? " and " + std::to_string(api.hooked.size() - kNamed) + " more" : "";
    notes.push_back("calls to " + api.name + "'s own API in " + Basename(api.library) + " are recorded (" +
                    Joined(named, ", ") + more + ")");
  }
  return notes;
}

std::string DescribeOwnAllocator(const Capture& capture) {
  const ProcessInfo::OwnAllocator& own = capture.main.process.own_allocator;
  if (!own.present) return "";
  auto defines = [&](const char* symbol) {
    for (const std::vector<std::string>* list : {&own.hooked, &own.refused})
      for (const std::string& entry : *list)
        if (entry == symbol || entry.rfind(std::string(symbol) + ":", 0) == 0) return true;
    return false;
  };
  const char* what = defines("malloc") ? "malloc" : defines("_Znwm") ? "operator new" : "allocator";
  std::string text = std::string("the executable's own ") + what + " (" +
                     (own.name.empty() ? "a heap of its own" : own.name) + ")";
  const auto list = Joined;
  if (own.refused.empty()) return text + " was hooked by entry patch (" + list(own.hooked, ", ") + ")";
  text += " was not hooked: " + list(own.refused, "; ") + "; their calls are not recorded";
  if (!own.hooked.empty()) text += " (hooked by entry patch: " + list(own.hooked, ", ") + ")";
  return text;
}

}  // namespace memframe::analysis
