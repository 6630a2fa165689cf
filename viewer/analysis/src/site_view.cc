#include <algorithm>

#include "report_input.h"

namespace memframe::analysis {

namespace {

std::string Basename(const std::string& path) {
  size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

FrameRange Narrow(FrameRange range, const ReportOptions& options) {
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
  size_t user = UserFrameIndex(view.stack);
  if (user < view.stack.size()) {
    const SourceFrame& f = view.stack[user];
    view.function = f.function;
    if (!f.file.empty() && f.line > 0) view.location = Basename(f.file) + ":" + std::to_string(f.line);
  }
  return view;
}

FrameRange AllFramesRange(const ReportInput& input) {
  const auto& frames = input.heap.frames.frames;
  uint32_t last = frames.empty() ? 0 : static_cast<uint32_t>(frames.size() - 1);
  return Narrow({0, last}, input.options);
}

FrameRange CompleteFramesRange(const ReportInput& input) {
  const FrameTable& table = input.heap.frames;
  if (table.frames_rendered == 0) return AllFramesRange(input);
  return Narrow({0, table.last_complete_frame}, input.options);
}

std::vector<SiteView> HiddenSiteViews(const ReportInput& input, FrameRange range, size_t count) {
  if (!input.groups) input.groups = GroupSitesByUserStack(input.heap.sites, input.capture.main, input.symbolizer);
  auto sites = FindHiddenSites(input.groups->index, range, input.options.min_fraction);
  if (sites.size() > count) sites.resize(count);
  std::vector<SiteView> views;
  views.reserve(sites.size());
  for (const SiteStats& s : sites) {
    views.push_back(MakeSiteView(s, input));
    auto members = input.groups->members.find(s.stack_id);
    if (members != input.groups->members.end()) views.back().stack_ids = members->second;
  }
  return views;
}

SiteView NameStack(uint32_t stack_id, const ReportInput& input) {
  SiteStats stats;
  stats.stack_id = stack_id;
  return MakeSiteView(stats, input);
}

uint32_t FrameOption(const ReportInput& input) {
  const auto& frames = input.heap.frames.frames;
  uint32_t last = frames.empty() ? 0 : static_cast<uint32_t>(frames.size() - 1);
  if (!input.options.frame) return last;
  if (*input.options.frame > last)
    throw ReportError("frame " + std::to_string(*input.options.frame) + " is not in the capture (frames 0.." +
                      std::to_string(last) + ")");
  return *input.options.frame;
}

}  // namespace memframe::analysis
