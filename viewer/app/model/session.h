// One loaded capture and everything the views read from it. Built by the
// SessionLoader on its thread, then owned by the UI thread alone: the
// symbolizer (libdw) is not thread-safe, so nothing shares it.
#pragma once

#include <cstdint>
#include <functional>
#include <future>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/gpu_objects.h"
#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/leaks.h"
#include "memframe/analysis/lifetimes.h"
#include "memframe/analysis/live_series.h"
#include "memframe/analysis/live_set_at.h"
#include "memframe/analysis/mismatches.h"
#include "memframe/analysis/phases.h"
#include "memframe/analysis/site_groups.h"
#include "memframe/analysis/size_histogram.h"
#include "memframe/analysis/summary_index.h"
#include "memframe/analysis/symbolizer.h"
#include "memframe/analysis/thread_filter.h"
#include "memframe/analysis/thread_stats.h"

namespace memframe::viewer {

// How a call site is named in tables (site_origin.h): its user frame, and
// the module that allocated.
struct SiteLabel {
  std::string name;      // SiteName: "swrast_dri.so (via Draw render.cpp:62)"; "" when the site has no stack
  std::string function;  // of the user frame; "" when the site has no stack
  std::string location;  // "file.cpp:46", "" when unknown
  std::string module;    // file name of the module that allocated
  analysis::ModuleClass module_class = analysis::ModuleClass::kSystem;
  bool has_stack = false;
  bool from_game = false;  // a game frame is on the stack (site_origin.h LedByTheGame): listed first
  size_t alloc_frame = 0;  // index in Stack() of the allocating frame (SiteOrigin::alloc)
};

class Session {
 public:
  Session(analysis::Capture capture, analysis::HeapAnalysis heap, analysis::SizeHistogramIndex sizes,
          std::unique_ptr<analysis::Symbolizer> symbolizer);

  // A preview is built from the summary index (summary_index.h) while the
  // whole capture loads: its capture has no events and its heap analysis no
  // live sets, so only the frame table, the phases, the sites' totals and
  // the header's figures are there, and what the index's viewer summary
  // holds when it has one (the markers, the mismatches, the live series and
  // totals by class). The timeline and the header draw from it; the views
  // that need the events wait for the whole session.
  bool preview() const { return preview_; }
  void MarkPreview() { preview_ = true; }
  // Called on a preview: the viewer summary of its index.
  void SetIndexed(analysis::ViewerSummary viewer);
  // What a whole session puts in the index for its next preview (the
  // classes under the rules it has: the loader asks before any are set).
  analysis::ViewerSummary MakeViewerSummary();
  // Whether ClassSeries() and TotalsByClass() hold figures: always but in a
  // preview, whose index has them for the built-in rules only.
  bool HasClassSeries() const { return !preview_ || IndexedClasses(); }
  // The live graph of a preview without them: one group, every site's,
  // from the frame table (no mapped bytes: those need the events).
  const analysis::LiveSeries& TotalSeries();

  const analysis::Capture& capture() const { return capture_; }
  const analysis::HeapAnalysis& heap() const { return heap_; }
  const analysis::SizeHistogramIndex& sizes() const { return sizes_; }
  const analysis::FrameTable& frames() const { return heap_.frames; }

  // Every frame of the table; and the frames that ended (all when none
  // did), the range the CLI's hidden report uses by default.
  analysis::FrameRange AllFrames() const;
  analysis::FrameRange CompleteFrames() const;

  // Every MARKER event (snapshots and game markers), in global order;
  // gathered when the session is built, on the loader's thread.
  const std::vector<analysis::MarkerEvent>& markers() const { return markers_; }
  // Nanoseconds from the start of the run to `ticks`.
  uint64_t NsSinceStart(uint64_t ticks) const;

  // Symbolized on first use and cached.
  const SiteLabel& Label(uint32_t stack_id);
  const std::vector<analysis::SourceFrame>& Stack(uint32_t stack_id);
  // Whether `match` holds for a frame of the site's stack from the
  // allocating frame outward (a search for the functions that led to it).
  // Frames come from the symbolizer's cache one by one: a search over every
  // site keeps no whole stack (Stack() of SuperTux's every site is 377 MB).
  bool AnyFrameFromAlloc(uint32_t stack_id, const std::function<bool(const analysis::SourceFrame&)>& match);
  // Call sites as `memframe report hidden` counts them: stacks that differ
  // only inside the runtime or the graphics driver are one site
  // (site_groups.h). Built on first use (the loader builds it, off the UI
  // thread); it symbolizes every stack whole.
  const analysis::GroupedSites& SiteGroups();
  // Coarser, for a table's "group by function": stacks that differ only in
  // the call's offset inside one function are one site too
  // (GroupSitesByFunction). Built on first use, on the UI thread.
  const analysis::GroupedSites& FunctionGroups();
  // The group (its representative stack id) of every stack, by function.
  uint32_t FunctionGroupOf(uint32_t stack_id);
  // The stacks with at least one allocation in size bin `bin` (any frame):
  // what the histogram's size filter keeps. One pass over the events the
  // first time a bin is asked for.
  using StackSet = std::unordered_set<uint32_t>;
  const StackSet& StacksInSizeBin(int bin);
  // The leaks by site group (analysis::GroupLeaks), as the leak table lists them.
  const analysis::LeakReport& GroupedLeaks();
  // The same of the blocks allocated in `range` (every leak when it holds
  // every frame): the live set at the end from the heap analysis'
  // checkpoints, once per range.
  const analysis::LeakReport& GroupedLeaks(analysis::FrameRange range);
  // Who allocated (module_class.h): the user's rules, then the built-in
  // ones. Setting them names every site again.
  void SetModuleClassRules(std::vector<analysis::ModuleClassRule> rules);
  const std::vector<analysis::ModuleClassRule>& module_class_rules() const {
    return symbolizer_->module_classes().user_rules();
  }
  // The classes every view shows (the toggle row, --only / --hide).
  const analysis::ClassFilter& class_filter() const { return class_filter_; }
  void SetClassFilter(analysis::ClassFilter filter);
  // Whether the filter keeps the site of `stack_id`.
  bool Keeps(uint32_t stack_id);
  // Allocations and bytes per class over every frame (cached per rules).
  const analysis::ModuleClassTotals& TotalsByClass();
  // Live heap and mapped bytes, allocations and frees per frame and module
  // class (live_series.h), rows as frames(); one replay of the events on
  // first use, again when the rules change.
  const analysis::LiveSeries& ClassSeries();
  // The size histogram index of the classes the filter keeps (sizes() when
  // it keeps all): one pass over the events the first time it is asked
  // for after the rules or the filter change.
  const analysis::SizeHistogramIndex& KeptSizes();
  // Changes whenever the rules or the filter change: views rebuild their rows.
  uint64_t classes_generation() const { return classes_generation_; }

  // The GPU objects (gpu_objects.h) replayed over every frame of the
  // table, on first use. Every thread's: a thread selection keeps the heap
  // events only.
  const analysis::GpuAnalysis& Gpu();

  // The lifetime advice of the blocks allocated in `judged` (empty: every
  // block; analysis::AnalyzeLifetimes), a replay of every event: worked out
  // on a thread of its own (on the UI thread it stood the window still for
  // 2.5 s at 10 M events), null until it is done unless `wait`. The last
  // one is kept.
  const analysis::LifetimeReport* Lifetimes(const std::vector<analysis::FrameRange>& judged, bool wait = false);
  // A view's work is being done off the UI thread (a screenshot waits).
  bool working() const { return lifetimes_job_.valid(); }

  // Frees that do not match their allocation (analysis::FindMismatches),
  // found on first use: the loader asks, off the UI thread.
  const analysis::MismatchReport& Mismatches();
  // The same, found by the loader (on its second core) before the session
  // is shared.
  void SetMismatches(analysis::MismatchReport report) { mismatches_ = std::move(report); }

  // The frames the views whose rules assume steady play judge (Hidden,
  // Lifetimes; phases.h JudgeFrames): the steady frames of `within`, or all
  // of them when judge_all_frames (the views' toggle, --all-frames).
  analysis::JudgedFrames Judged(analysis::FrameRange within) const;
  bool judge_all_frames() const { return judge_all_frames_; }
  void SetJudgeAllFrames(bool all) { judge_all_frames_ = all; }

  // The MAP and UNMAP events in global order, gathered on first use (the
  // loader gathers them beside the heap analysis: SetMapEvents): a frame's
  // mappings without decoding every event again.
  const std::vector<analysis::Event>& MapEvents();
  struct MapEventsPass : analysis::EventPass {
    std::vector<analysis::Event> events;
    void OnEvent(const analysis::Event& e) override;
  };
  void SetMapEvents(std::vector<analysis::Event> events);

  // What every thread did frame by frame, over every thread's events (the
  // Threads tab lists them whatever is selected).
  const analysis::ThreadHistory& thread_history() const { return thread_history_; }
  // The threads every view shows (thread_filter.h; empty = all). The capture
  // and the heap analysis hold only their events.
  const analysis::ThreadSelection& thread_selection() const { return thread_selection_; }
  // Called by the loader: the threads of the whole capture, the selection
  // the capture was filtered with, and its unfiltered events (empty when
  // nothing was filtered).
  void SetThreads(analysis::ThreadHistory history, analysis::ThreadSelection selection,
                  analysis::EventStore all_events);
  // Shows only `selection`: the model is rebuilt from those threads' events
  // on a background thread; the views keep the current one until
  // PollThreads() swaps the new one in.
  void SelectThreads(analysis::ThreadSelection selection);
  // What SelectThreads asked for last (shown while it is being applied).
  const analysis::ThreadSelection& pending_threads() const { return pending_threads_; }
  bool threads_rebuilding() const { return thread_job_.valid(); }
  // The TIDs of pending_threads() as --thread values (empty = all).
  std::vector<std::string> PendingThreadTids() const;
  // True when a rebuild has just been swapped in: views drop what they
  // derived from the old model (View::OnSessionChanged).
  bool PollThreads();
  // The thread cell of a site ("main", "main+2"; ThreadsCell), of the
  // capture's own sites or (grouped) of the hidden table's groups.
  const std::string& ThreadCell(uint32_t stack_id, bool grouped = false);
  // The thread cell of rows that stand for several stacks (function
  // grouping): who allocated at any of them.
  std::string ThreadCellOf(const std::vector<uint32_t>& stack_ids);

 private:
  analysis::Capture capture_;
  analysis::HeapAnalysis heap_;
  analysis::SizeHistogramIndex sizes_;
  std::unique_ptr<analysis::Symbolizer> symbolizer_;
  std::vector<analysis::MarkerEvent> markers_;
  uint64_t start_ticks_ = 0;  // of the first event of every thread's
  std::unordered_map<uint32_t, SiteLabel> labels_;
  std::unordered_map<uint32_t, std::vector<analysis::SourceFrame>> stacks_;
  std::vector<analysis::Event> map_events_;
  bool has_map_events_ = false;
  analysis::GroupedSites groups_;
  bool has_groups_ = false;
  analysis::GroupedSites function_groups_;
  std::unordered_map<uint32_t, uint32_t> function_group_of_;
  bool has_function_groups_ = false;
  std::vector<StackSet> stacks_by_size_bin_;  // empty until first asked
  std::optional<analysis::MismatchReport> mismatches_;
  std::optional<analysis::GpuAnalysis> gpu_;
  std::optional<analysis::LeakReport> grouped_leaks_;
  std::optional<std::pair<analysis::FrameRange, analysis::LeakReport>> range_leaks_;
  analysis::ClassFilter class_filter_;
  analysis::ModuleClassTotals class_totals_;
  bool has_class_totals_ = false;
  analysis::LiveSeries class_series_;
  bool has_class_series_ = false;
  analysis::SizeHistogramIndex kept_sizes_;
  std::optional<uint64_t> kept_sizes_generation_;  // classes_generation_ of kept_sizes_
  uint64_t classes_generation_ = 0;
  bool judge_all_frames_ = false;
  bool preview_ = false;
  std::optional<analysis::LiveSeries> total_series_;
  // A preview's class series and totals from its index (SetIndexed).
  std::optional<analysis::ViewerSummary> indexed_;
  bool IndexedClasses() const {
    return preview_ && indexed_ && symbolizer_->module_classes().user_rules().empty();
  }

  struct ThreadModel {
    analysis::EventStore events;
    analysis::HeapAnalysis heap;
    analysis::SizeHistogramIndex sizes;
  };
  void Invalidate();
  analysis::ThreadHistory thread_history_;
  analysis::ThreadSelection thread_selection_, pending_threads_;
  analysis::EventStore all_events_;  // every thread's events while a selection is applied
  std::future<ThreadModel> thread_job_;
  // Lifetimes(): the last report, and the one being worked out. The job
  // reads capture_ and heap_: it is waited for before they change
  // (PollThreads), and as a member after them, before they go.
  std::optional<std::pair<std::vector<analysis::FrameRange>, analysis::LifetimeReport>> lifetimes_;
  std::vector<analysis::FrameRange> lifetimes_job_ranges_;
  std::future<analysis::LifetimeReport> lifetimes_job_;
  std::unordered_map<uint32_t, std::string> thread_cells_[2];  // [grouped]
};

}  // namespace memframe::viewer
