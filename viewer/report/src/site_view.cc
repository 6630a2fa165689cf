#include <algorithm>

#include "report_input.h"
#include "memframe/analysis/look_alikes.h"
#include "memframe/analysis/site_origin.h"

namespace memframe::analysis {

namespace {

// `range` narrowed by --from / --to or --phase; a range that misses every
// frame of the capture is a mistake worth saying, not an empty table.
FrameRange Narrow(FrameRange range, const ReportInput& input) {
  const ReportOptions& options = input.options;
  const FrameTable& table = input.heap.frames;
  if (const Phase* phase = PhaseOption(input)) {
    range.from = std::max(range.from, phase->frames.from);
    range.to = std::min(range.to, phase->frames.to);
    if (range.from > range.to) range = phase->frames;  // the teardown: frames that never ended
    return range;
  }
  const FrameRange all = table.All();
  if (options.from && *options.from > all.to)
    throw ReportError("--from " + std::to_string(*options.from) + " is after the capture's last frame (" +
                      DescribeFrames(table) + ")");
  if (options.to && *options.to < all.from)
    throw ReportError("--to " + std::to_string(*options.to) + " is before the capture's first frame (" +
                      DescribeFrames(table) + ")");
  if (options.from) range.from = std::max(range.from, *options.from);
  if (options.to) range.to = std::min(range.to, *options.to);
  return range;
}

}  // namespace

SiteView MakeSiteView(const SiteStats& stats, const ReportInput& input) {
  SiteView view;
  view.stats = stats;
  const auto& stacks = input.capture.main.stacks;
  auto it = stacks.find(stats.stack_id);
  if (it != stacks.end()) view.stack = input.symbolizer.SymbolizeStack(it->second);
  NameSiteView(view);
  SetSiteThreads(view, input.heap.sites.Find(stats.stack_id), input.capture.main);
  return view;
}

void NameSiteView(SiteView& view) {
  SiteOrigin origin = FindSiteOrigin(view.stack);
  view.module = origin.module;
  view.module_class = origin.module_class;
  view.from_game = LedByTheGame(origin, view.stack);
  if (origin.user < view.stack.size()) {
    const SourceFrame& f = view.stack[origin.user];
    view.function = f.function;
    view.location = view.user_location = LineLocation(f);
    view.name = SiteName(view.stack, origin);
  }
}

void SetSiteThreads(SiteView& view, const SiteHistory* site, const Stream& stream) {
  view.threads.clear();
  view.thread.clear();
  if (!site) return;
  for (const SiteThread& t : site->threads) {
    view.threads.push_back(
        {t.thread < stream.threads.size() ? stream.threads[t.thread].tid : 0, ThreadName(stream, t.thread),
         t.allocations});
  }
  std::stable_sort(view.threads.begin(), view.threads.end(),
                   [](const SiteViewThread& a, const SiteViewThread& b) { return a.allocations > b.allocations; });
  view.thread = ThreadsCell(stream, site->threads);
}

bool ShowsThreads(const ReportInput& input) {
  std::vector<bool> seen(input.capture.main.threads.size());
  size_t count = 0;
  for (const SiteHistory& site : input.heap.sites.sites()) {
    for (const SiteThread& t : site.threads) {
      if (t.thread < seen.size() && !seen[t.thread]) {
        seen[t.thread] = true;
        if (++count > 1) return true;
      }
    }
  }
  return false;
}

ModuleClass StackClass(const ReportInput& input, uint32_t stack_id) {
  auto cached = input.stack_classes.find(stack_id);
  if (cached != input.stack_classes.end()) return cached->second;
  const auto& stacks = input.capture.main.stacks;
  auto it = stacks.find(stack_id);
  ModuleClass c = FindSiteOrigin(it == stacks.end() ? std::vector<SourceFrame>{}
                                                    : input.symbolizer.SymbolizeStack(it->second))
                      .module_class;
  input.stack_classes.emplace(stack_id, c);
  return c;
}

bool KeepsSite(const ReportInput& input, uint32_t stack_id) {
  return input.options.classes.KeepsAll() || input.options.classes.Keeps(StackClass(input, stack_id));
}

ModuleClassTotals TotalsByClass(const ReportInput& input, const CallSiteIndex& sites, FrameRange range) {
  ModuleClassTotals totals;
  for (const SiteHistory& site : sites.sites()) {
    SiteStats s = SummarizeSite(site, range, 0);
    if (s.allocations == 0) continue;
    const int c = static_cast<int>(StackClass(input, site.stack_id));
    totals.allocations[c] += s.allocations;
    totals.bytes[c] += s.bytes;
  }
  return totals;
}

FrameRange AllFramesRange(const ReportInput& input) { return Narrow(input.heap.frames.All(), input); }

FrameRange CompleteFramesRange(const ReportInput& input) {
  return Narrow(input.heap.frames.Complete(), input);
}

uint64_t FramesIn(const ReportInput& input, FrameRange range) { return input.heap.frames.CountIn(range); }

JudgedFrames JudgedFramesOf(const ReportInput& input, FrameRange within) {
  return JudgeFrames(input.heap.frames, within, input.options.all_frames);
}

const Phase* PhaseOption(const ReportInput& input) {
  if (input.options.phase.empty()) return nullptr;
  std::string error;
  const Phase* phase = FindPhaseByName(FindPhases(input.heap.frames), input.options.phase, &error);
  if (!phase) throw ReportError("--phase: " + error);
  return phase;
}

namespace {

// A phase's scope: every frame of it, judged as steady play only when it is.
ReportScope PhaseScope(const Phase& phase, const ReportInput& input) {
  ReportScope scope{&phase, phase.frames, {}};
  scope.judged.ranges = {phase.frames};
  scope.judged.count = input.heap.frames.CountIn(phase.frames);
  scope.judged.steady_only = phase.kind == PhaseKind::kSteady;
  return scope;
}

bool PerPhase(const ReportInput& input) {
  return input.options.phase.empty() && !input.options.from && !input.options.to && !input.options.all_frames;
}

}  // namespace

std::vector<ReportScope> JudgedScopes(const ReportInput& input) {
  if (const Phase* phase = PhaseOption(input)) return {PhaseScope(*phase, input)};
  std::vector<ReportScope> scopes;
  if (PerPhase(input)) {
    for (const Phase* p : JudgedPhases(input.heap.frames)) scopes.push_back(PhaseScope(*p, input));
    if (!scopes.empty()) return scopes;
  }
  const FrameRange range = CompleteFramesRange(input);
  return {ReportScope{nullptr, range, JudgedFramesOf(input, range)}};
}

size_t ShortSteadyPhases(const ReportInput& input) {
  if (!PerPhase(input)) return 0;
  size_t steady = 0;
  for (const Phase& p : FindPhases(input.heap.frames)) steady += p.kind == PhaseKind::kSteady;
  const size_t judged = JudgedPhases(input.heap.frames).size();
  return judged ? steady - judged : 0;
}

std::vector<ReportScope> PhaseScopes(const ReportInput& input) {
  if (const Phase* phase = PhaseOption(input)) return {PhaseScope(*phase, input)};
  if (input.options.from || input.options.to || input.options.all_frames || FindPhases(input.heap.frames).empty()) {
    const FrameRange range = AllFramesRange(input);
    return {ReportScope{nullptr, range, JudgedFrames{{range}, FramesIn(input, range), false, true}}};
  }
  std::vector<ReportScope> scopes;
  for (const Phase& p : FindPhases(input.heap.frames)) scopes.push_back(PhaseScope(p, input));
  return scopes;
}

const GroupedSites& SiteGroups(const ReportInput& input) {
  if (!input.groups) input.groups = GroupSitesByUserStack(input.heap.sites, input.capture.main, input.symbolizer);
  return *input.groups;
}

const LeakReport& GroupedLeaks(const ReportInput& input) {
  if (!input.grouped_leaks) input.grouped_leaks = GroupLeaks(input.heap.leaks, SiteGroups(input));
  return *input.grouped_leaks;
}

std::vector<SiteView> HiddenSiteViews(const ReportInput& input, const JudgedFrames& judged, size_t count) {
  auto sites = FindHiddenSites(SiteGroups(input).index, judged.ranges, judged.count, input.options.min_fraction);
  std::erase_if(sites, [&](const SiteStats& s) { return !KeepsSite(input, s.stack_id); });
  std::vector<SiteView> views;
  views.reserve(sites.size());
  for (const SiteStats& s : sites) {
    views.push_back(MakeSiteView(s, input));
    auto members = input.groups->members.find(s.stack_id);
    if (members != input.groups->members.end()) views.back().stack_ids = members->second;
    SetSiteThreads(views.back(), input.groups->index.Find(s.stack_id), input.capture.main);
  }
  std::stable_partition(views.begin(), views.end(), [](const SiteView& v) { return v.from_game; });
  if (views.size() > count) views.resize(count);
  NameCallersOfLookAlikes(views);
  return views;
}

void NameCallersOfLookAlikes(std::vector<SiteView>& views) {
  std::vector<const std::vector<SourceFrame>*> stacks;
  stacks.reserve(views.size());
  for (const SiteView& v : views) stacks.push_back(&v.stack);
  std::vector<LookAlikeName> names = NameLookAlikes(stacks);
  for (size_t i = 0; i < views.size(); ++i) {
    if (views[i].function.empty()) continue;
    views[i].location = std::move(names[i].location);
    views[i].via = std::move(names[i].via);
  }
}

SiteView NameStack(uint32_t stack_id, const ReportInput& input) {
  SiteStats stats;
  stats.stack_id = stack_id;
  return MakeSiteView(stats, input);
}

std::string PhaseNameOf(const FrameTable& t, uint64_t frame) {
  const std::vector<Phase>& phases = FindPhases(t);
  auto it = std::upper_bound(phases.begin(), phases.end(), frame,
                             [](uint64_t f, const Phase& p) { return f < p.frames.from; });
  return it == phases.begin() ? "" : PhaseName(*std::prev(it));
}

uint64_t FrameOption(const ReportInput& input) {
  const FrameTable& table = input.heap.frames;
  if (!input.options.frame) {
    if (const Phase* phase = PhaseOption(input)) return phase->frames.to;
    return table.All().to;
  }
  const uint64_t frame = *input.options.frame;
  // An empty table still answers for frame 0 (everything is empty there).
  bool known = table.frames.empty() ? frame == 0 : table.Find(frame) != nullptr;
  if (!known)
    throw ReportError("frame " + std::to_string(frame) + " is not in the capture (" + DescribeFrames(table) + ")");
  return frame;
}

}  // namespace memframe::analysis
