#include "session.h"

#include <algorithm>
#include <chrono>

#include "memframe/analysis/site_origin.h"
#include "memframe/analysis/size_bin_sites.h"
#include "background_priority.h"

namespace memframe::viewer {

Session::Session(analysis::Capture capture, analysis::HeapAnalysis heap, analysis::SizeHistogramIndex sizes,
                 std::unique_ptr<analysis::Symbolizer> symbolizer)
    : capture_(std::move(capture)),
      heap_(std::move(heap)),
      sizes_(std::move(sizes)),
      symbolizer_(std::move(symbolizer)),
      markers_(analysis::FindMarkerEvents(capture_.main)),
      start_ticks_(capture_.main.events.empty() ? 0 : capture_.main.events[0].ticks) {
  // Before the first site is named: the game class needs the executable.
  symbolizer_->SetModuleClasses(analysis::ClassifierFor(capture_.main, symbolizer_->module_classes().user_rules()));
}

void Session::SetModuleClassRules(std::vector<analysis::ModuleClassRule> rules) {
  symbolizer_->SetModuleClasses(analysis::ClassifierFor(capture_.main, std::move(rules)));
  labels_.clear();
  stacks_.clear();
  has_groups_ = false;
  has_function_groups_ = false;
  has_class_totals_ = false;
  has_class_series_ = false;
  grouped_leaks_.reset();  // grouped by the site groups, which name sites again
  range_leaks_.reset();
  ++classes_generation_;
}

const analysis::LiveSeries& Session::ClassSeries() {
  if (!has_class_series_) {
    class_series_ = IndexedClasses() ? indexed_->class_series
                                     : analysis::ComputeClassSeries(capture_.main, heap_.frames, [&](uint32_t stack_id) {
                                         return Label(stack_id).module_class;
                                       });
    has_class_series_ = true;
  }
  return class_series_;
}

void Session::SetIndexed(analysis::ViewerSummary viewer) {
  markers_ = std::move(viewer.markers);
  start_ticks_ = viewer.start_ticks;
  mismatches_ = std::move(viewer.mismatches);
  indexed_ = std::move(viewer);
  has_class_series_ = false;
  has_class_totals_ = false;
}

analysis::ViewerSummary Session::MakeViewerSummary() {
  analysis::ViewerSummary v;
  v.markers = markers_;
  v.start_ticks = start_ticks_;
  v.class_series = ClassSeries();
  v.class_totals = TotalsByClass();
  v.mismatches = Mismatches();
  return v;
}

const analysis::LiveSeries& Session::TotalSeries() {
  if (!total_series_) {
    analysis::LiveSeries series;
    series.groups = 1;
    for (const analysis::FrameStats& f : heap_.frames.frames) {
      series.frames.push_back(f.frame);
      analysis::LiveFigures figures;
      figures.live_bytes = f.live_bytes;
      figures.allocations = f.allocations;
      figures.frees = f.frees;
      figures.bytes_allocated = f.bytes_allocated;
      figures.bytes_freed = f.bytes_freed;
      series.cells.push_back(figures);
    }
    total_series_ = std::move(series);
  }
  return *total_series_;
}

const analysis::GpuAnalysis& Session::Gpu() {
  if (!gpu_) gpu_ = analysis::AnalyzeGpu(capture_.main, heap_.frames);
  return *gpu_;
}

const analysis::ModuleClassTotals& Session::TotalsByClass() {
  if (has_class_totals_) return class_totals_;
  has_class_totals_ = true;
  if (IndexedClasses()) return class_totals_ = indexed_->class_totals;
  class_totals_ = {};
  for (const analysis::SiteHistory& site : heap_.sites.sites()) {
    const int c = static_cast<int>(Label(site.stack_id).module_class);
    class_totals_.allocations[c] += site.allocations;
    class_totals_.bytes[c] += site.bytes;
  }
  return class_totals_;
}

const analysis::SizeHistogramIndex& Session::KeptSizes() {
  if (class_filter_.KeepsAll()) return sizes_;
  if (kept_sizes_generation_ != classes_generation_) {
    kept_sizes_ = analysis::SizeHistogramIndex::Build(capture_.main, [&](uint32_t stack_id) { return Keeps(stack_id); });
    kept_sizes_generation_ = classes_generation_;
  }
  return kept_sizes_;
}

void Session::SetClassFilter(analysis::ClassFilter filter) {
  if (filter.kept == class_filter_.kept) return;
  class_filter_ = filter;
  ++classes_generation_;
}

bool Session::Keeps(uint32_t stack_id) {
  return class_filter_.KeepsAll() || class_filter_.Keeps(Label(stack_id).module_class);
}

void Session::SetThreads(analysis::ThreadHistory history, analysis::ThreadSelection selection,
                         analysis::EventStore all_events) {
  thread_history_ = std::move(history);
  thread_selection_ = pending_threads_ = std::move(selection);
  all_events_ = std::move(all_events);
  // Times count from the run's first event, whichever thread made it.
  if (!all_events_.empty()) start_ticks_ = all_events_[0].ticks;
}

void Session::SelectThreads(analysis::ThreadSelection selection) {
  // Ticking every thread is no filter at all.
  if (std::find(selection.begin(), selection.end(), false) == selection.end()) selection.clear();
  if (selection == pending_threads_) return;
  pending_threads_ = selection;
  // The job owns copies of what it reads: the session stays the UI
  // thread's. A job still running is waited for when replaced (its result
  // is dropped).
  analysis::Stream work;
  work.clock = capture_.main.clock;
  work.markers = capture_.main.markers;
  work.threads = capture_.main.threads;
  work.events = thread_selection_.empty() ? capture_.main.events : all_events_;
  thread_job_ = std::async(std::launch::async, [work = std::move(work), selection]() mutable {
    LowerThisThreadsPriority();
    analysis::FilterThreads(&work, selection);
    ThreadModel model;
    model.heap = analysis::AnalyzeHeap(work);
    model.sizes = analysis::SizeHistogramIndex::Build(work);
    model.events = std::move(work.events);
    return model;
  });
}

const analysis::LifetimeReport* Session::Lifetimes(const std::vector<analysis::FrameRange>& judged, bool wait) {
  if (lifetimes_ && lifetimes_->first == judged) return &lifetimes_->second;
  auto take = [&] { lifetimes_.emplace(std::move(lifetimes_job_ranges_), lifetimes_job_.get()); };
  // One job at a time: one for other frames is let finish, then replaced.
  if (lifetimes_job_.valid() && lifetimes_job_.wait_for(std::chrono::seconds(0)) == std::future_status::ready) take();
  if (lifetimes_ && lifetimes_->first == judged) return &lifetimes_->second;
  if (lifetimes_job_.valid() && !wait) return nullptr;
  if (lifetimes_job_.valid()) take();
  lifetimes_job_ranges_ = judged;
  lifetimes_job_ = std::async(std::launch::async, [this, judged] {
    LowerThisThreadsPriority();
    return analysis::AnalyzeLifetimes(capture_.main, heap_.frames.phases, judged);
  });
  if (!wait) return nullptr;
  take();
  return &lifetimes_->second;
}

bool Session::PollThreads() {
  if (!thread_job_.valid() || thread_job_.wait_for(std::chrono::seconds(0)) != std::future_status::ready) return false;
  // A lifetimes job reads the events and the frame table about to change.
  if (lifetimes_job_.valid()) lifetimes_job_.get();
  ThreadModel model = thread_job_.get();
  if (thread_selection_.empty()) all_events_ = std::move(capture_.main.events);
  capture_.main.events = pending_threads_.empty() ? std::move(all_events_) : std::move(model.events);
  if (pending_threads_.empty()) all_events_ = analysis::EventStore();
  heap_ = std::move(model.heap);
  sizes_ = std::move(model.sizes);
  thread_selection_ = pending_threads_;
  Invalidate();
  return true;
}

void Session::Invalidate() {
  // The markers stay: a thread filter keeps every MARKER event.
  // Everything else derived from the events or the heap analysis goes.
  has_groups_ = false;
  has_function_groups_ = false;
  has_class_totals_ = false;
  has_class_series_ = false;
  has_map_events_ = false;
  map_events_.clear();
  stacks_by_size_bin_.clear();
  mismatches_.reset();
  lifetimes_.reset();
  grouped_leaks_.reset();
  range_leaks_.reset();
  thread_cells_[0].clear();
  thread_cells_[1].clear();
  ++classes_generation_;
}

std::string Session::ThreadCellOf(const std::vector<uint32_t>& stack_ids) {
  if (stack_ids.size() == 1) return ThreadCell(stack_ids[0]);
  std::vector<analysis::SiteThread> threads;
  for (uint32_t id : stack_ids) {
    if (const analysis::SiteHistory* site = heap_.sites.Find(id))
      for (const analysis::SiteThread& t : site->threads) analysis::AddSiteThread(threads, t.thread, t.allocations);
  }
  return analysis::ThreadsCell(capture_.main, threads);
}

std::vector<std::string> Session::PendingThreadTids() const {
  std::vector<std::string> tids;
  for (size_t i = 0; i < pending_threads_.size() && i < capture_.main.threads.size(); ++i)
    if (pending_threads_[i]) tids.push_back(std::to_string(capture_.main.threads[i].tid));
  return tids;
}

const std::string& Session::ThreadCell(uint32_t stack_id, bool grouped) {
  auto& cells = thread_cells_[grouped ? 1 : 0];
  auto cached = cells.find(stack_id);
  if (cached != cells.end()) return cached->second;
  const analysis::SiteHistory* site = grouped ? SiteGroups().index.Find(stack_id) : heap_.sites.Find(stack_id);
  std::string cell = site ? analysis::ThreadsCell(capture_.main, site->threads) : "";
  return cells.emplace(stack_id, std::move(cell)).first->second;
}

uint64_t Session::NsSinceStart(uint64_t ticks) const {
  const analysis::Stream& s = capture_.main;
  int64_t ns = s.clock.ToNs(ticks) - s.clock.ToNs(start_ticks_);
  return ns > 0 ? static_cast<uint64_t>(ns) : 0;
}

analysis::FrameRange Session::AllFrames() const { return heap_.frames.All(); }

analysis::FrameRange Session::CompleteFrames() const { return heap_.frames.Complete(); }

analysis::JudgedFrames Session::Judged(analysis::FrameRange within) const {
  return analysis::JudgeFrames(heap_.frames, within, judge_all_frames_);
}

const std::vector<analysis::SourceFrame>& Session::Stack(uint32_t stack_id) {
  auto cached = stacks_.find(stack_id);
  if (cached != stacks_.end()) return cached->second;
  std::vector<analysis::SourceFrame> frames;
  auto it = capture_.main.stacks.find(stack_id);
  if (it != capture_.main.stacks.end()) frames = symbolizer_->SymbolizeStack(it->second);
  return stacks_.emplace(stack_id, std::move(frames)).first->second;
}

bool Session::AnyFrameFromAlloc(uint32_t stack_id, const std::function<bool(const analysis::SourceFrame&)>& match) {
  auto it = capture_.main.stacks.find(stack_id);
  if (it == capture_.main.stacks.end()) return false;
  const size_t alloc = Label(stack_id).alloc_frame;
  size_t index = 0;  // as Stack() numbers the frames: memframe's own left out
  for (uint64_t address : it->second) {
    const auto& frames = symbolizer_->Symbolize(address);
    if (!frames.empty() && analysis::IsMemframeModule(frames[0].module)) continue;
    for (const analysis::SourceFrame& f : frames)
      if (index++ >= alloc && match(f)) return true;
  }
  return false;
}

const analysis::GroupedSites& Session::SiteGroups() {
  if (!has_groups_) {
    groups_ = analysis::GroupSitesByUserStack(heap_.sites, capture_.main, *symbolizer_);
    has_groups_ = true;
  }
  return groups_;
}

const analysis::GroupedSites& Session::FunctionGroups() {
  if (!has_function_groups_) {
    function_groups_ = analysis::GroupSitesByFunction(heap_.sites, capture_.main, *symbolizer_);
    function_group_of_.clear();
    for (const auto& [group, members] : function_groups_.members)
      for (uint32_t id : members) function_group_of_[id] = group;
    has_function_groups_ = true;
  }
  return function_groups_;
}

uint32_t Session::FunctionGroupOf(uint32_t stack_id) {
  FunctionGroups();
  auto it = function_group_of_.find(stack_id);
  return it != function_group_of_.end() ? it->second : stack_id;
}

const Session::StackSet& Session::StacksInSizeBin(int bin) {
  if (stacks_by_size_bin_.empty()) {
    stacks_by_size_bin_.resize(analysis::kSizeBins);
    analysis::SizeBinSites sites = analysis::SitesBySizeBin(capture_.main, AllFrames());
    for (int b = 0; b < analysis::kSizeBins; ++b)
      for (const analysis::SizeBinSite& s : sites[b]) stacks_by_size_bin_[b].insert(s.stack_id);
  }
  return stacks_by_size_bin_[std::clamp(bin, 0, analysis::kSizeBins - 1)];
}

const analysis::MismatchReport& Session::Mismatches() {
  if (!mismatches_) mismatches_ = analysis::FindMismatches(capture_.main);
  return *mismatches_;
}

const analysis::LeakReport& Session::GroupedLeaks() {
  if (!grouped_leaks_) grouped_leaks_ = analysis::GroupLeaks(heap_.leaks, SiteGroups());
  return *grouped_leaks_;
}

const analysis::LeakReport& Session::GroupedLeaks(analysis::FrameRange range) {
  const analysis::FrameRange all = AllFrames();
  if (range.from <= all.from && range.to >= all.to) return GroupedLeaks();
  if (!range_leaks_ || !(range_leaks_->first == range)) {
    const analysis::Stream& s = capture_.main;
    const analysis::LiveSet end = heap_.live_sets.AtPosition(s, s.events.size());
    range_leaks_.emplace(range, analysis::GroupLeaks(analysis::CollectLeaks(end, range), SiteGroups()));
  }
  return range_leaks_->second;
}

void Session::MapEventsPass::OnEvent(const analysis::Event& e) {
  if (e.kind() == analysis::EventKind::kMap || e.kind() == analysis::EventKind::kUnmap) events.push_back(e);
}

void Session::SetMapEvents(std::vector<analysis::Event> events) {
  map_events_ = std::move(events);
  has_map_events_ = true;
}

const std::vector<analysis::Event>& Session::MapEvents() {
  if (!has_map_events_) {
    MapEventsPass pass;
    analysis::Replay(capture_.main, {&pass});
    SetMapEvents(std::move(pass.events));
  }
  return map_events_;
}

const SiteLabel& Session::Label(uint32_t stack_id) {
  auto cached = labels_.find(stack_id);
  if (cached != labels_.end()) return cached->second;
  // Symbolize from the innermost frame outwards and stop at the user frame:
  // a table names thousands of sites, and the frames beyond the user frame
  // (the game loop, main, libc start-up) are most of the work.
  std::vector<analysis::SourceFrame> prefix;
  auto it = capture_.main.stacks.find(stack_id);
  analysis::SiteOrigin origin;
  bool found = false;
  if (it != capture_.main.stacks.end()) {
    for (uint64_t address : it->second) {
      const auto& frames = symbolizer_->Symbolize(address);
      if (!frames.empty() && analysis::IsMemframeModule(frames[0].module)) continue;
      prefix.insert(prefix.end(), frames.begin(), frames.end());
      origin = analysis::FindSiteOrigin(prefix);
      if (analysis::OriginSettled(prefix, origin)) {
        found = true;
        break;
      }
    }
  }
  const std::vector<analysis::SourceFrame>& stack = found ? prefix : Stack(stack_id);
  if (!found) origin = analysis::FindSiteOrigin(stack);
  SiteLabel label;
  if (origin.user < stack.size()) {
    const analysis::SourceFrame& f = stack[origin.user];
    label.name = analysis::SiteName(stack, origin);
    label.function = f.function;
    label.location = analysis::LineLocation(f);
    label.module = origin.module;
    label.module_class = origin.module_class;
    label.has_stack = true;
    label.from_game = analysis::LedByTheGame(origin, stack);
    label.alloc_frame = origin.alloc;
  }
  return labels_.emplace(stack_id, std::move(label)).first->second;
}

}  // namespace memframe::viewer
