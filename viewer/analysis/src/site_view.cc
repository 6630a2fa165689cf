#include <algorithm>

#include "report_input.h"
#include "report_json_common.h"

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

FrameRange AllFramesRange(const ReportInput& input) { return Narrow(input.heap.frames.All(), input.options); }

FrameRange CompleteFramesRange(const ReportInput& input) {
  return Narrow(input.heap.frames.Complete(), input.options);
}

uint64_t FramesIn(const ReportInput& input, FrameRange range) { return input.heap.frames.CountIn(range); }

std::vector<SiteView> HiddenSiteViews(const ReportInput& input, FrameRange range, size_t count) {
  if (!input.groups) input.groups = GroupSitesByUserStack(input.heap.sites, input.capture.main, input.symbolizer);
  auto sites = FindHiddenSites(input.groups->index, range, FramesIn(input, range), input.options.min_fraction);
  if (sites.size() > count) sites.resize(count);
  std::vector<SiteView> views;
  views.reserve(sites.size());
  for (const SiteStats& s : sites) {
    views.push_back(MakeSiteView(s, input));
    auto members = input.groups->members.find(s.stack_id);
    if (members != input.groups->members.end()) views.back().stack_ids = members->second;
  }
  NameCallersOfLookAlikes(views);
  return views;
}

namespace {

const SourceFrame* FrameOutward(const SiteView& v, size_t outward) {
  size_t index = UserFrameIndex(v.stack) + outward;
  return index < v.stack.size() ? &v.stack[index] : nullptr;
}

// The same place in the code: same function and line, and, without line
// information (a library shipped without debug info), the same return
// address: two calls inside one function differ only there.
bool SamePlace(const SourceFrame& a, const SourceFrame& b) {
  if (a.function != b.function || a.file != b.file || a.line != b.line) return false;
  return a.line > 0 || a.address == b.address;
}

// Where in its function a frame is, for when its name alone does not say.
std::string PlaceOf(const SourceFrame& f) {
  if (f.line > 0) return Basename(f.file) + ":" + std::to_string(f.line);
  if (!f.module.empty()) return Basename(f.module) + "+" + Hex(f.module_offset);
  return Hex(f.address);
}

}  // namespace

void NameCallersOfLookAlikes(std::vector<SiteView>& views) {
  constexpr size_t kMaxCallersNamed = 3;
  // Decided for every row before any row changes: a location filled in
  // below must not stop another row from seeing its look-alikes.
  std::vector<std::string> locations(views.size()), vias(views.size());
  for (size_t i = 0; i < views.size(); ++i) {
    locations[i] = views[i].location;
    if (views[i].function.empty()) continue;
    // How far out this row's frames must go before it differs from every
    // look-alike (the deepest of the pairwise first differences), and at
    // which of those depths a look-alike has a frame of the same name in
    // another place, so that the name needs its place beside it.
    size_t needed = 0;
    std::vector<bool> same_name(kMaxCallersNamed + 1, false);
    for (size_t j = 0; j < views.size(); ++j) {
      if (j == i || views[j].function != views[i].function || views[j].location != views[i].location) continue;
      for (size_t outward = 0;; ++outward) {
        const SourceFrame* mine = FrameOutward(views[i], outward);
        const SourceFrame* theirs = FrameOutward(views[j], outward);
        if (!mine) break;  // they differ only further out, or below the user frame
        if (theirs && SamePlace(*mine, *theirs)) continue;
        needed = std::max(needed, outward);
        if (theirs && theirs->function == mine->function && outward < same_name.size()) same_name[outward] = true;
        break;
      }
    }
    // The user frame itself differs (one function of a library without
    // line information, allocating from two places): its place tells.
    if (same_name[0] && locations[i].empty()) locations[i] = PlaceOf(*FrameOutward(views[i], 0));
    for (size_t outward = 1; outward <= std::min(needed, kMaxCallersNamed); ++outward) {
      const SourceFrame& f = *FrameOutward(views[i], outward);
      if (outward > 1) vias[i] += " <- ";
      vias[i] += same_name[outward] ? f.function + " (" + PlaceOf(f) + ")" : f.function;
    }
    if (needed > kMaxCallersNamed) vias[i] += " <- ...";
  }
  for (size_t i = 0; i < views.size(); ++i) {
    views[i].location = std::move(locations[i]);
    views[i].via = std::move(vias[i]);
  }
}

SiteView NameStack(uint32_t stack_id, const ReportInput& input) {
  SiteStats stats;
  stats.stack_id = stack_id;
  return MakeSiteView(stats, input);
}

uint64_t FrameOption(const ReportInput& input) {
  const FrameTable& table = input.heap.frames;
  if (!input.options.frame) return table.All().to;
  const uint64_t frame = *input.options.frame;
  // An empty table still answers for frame 0 (everything is empty there).
  bool known = table.frames.empty() ? frame == 0 : table.Find(frame) != nullptr;
  if (!known)
    throw ReportError("frame " + std::to_string(frame) + " is not in the capture (" + DescribeFrames(table) + ")");
  return frame;
}

}  // namespace memframe::analysis
