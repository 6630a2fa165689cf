#include "selection.h"

#include <algorithm>

#include "memframe/analysis/phases.h"

namespace memframe::viewer {

namespace {

analysis::FrameRange Clip(analysis::FrameRange r, analysis::FrameRange all) {
  r.from = std::clamp(r.from, all.from, all.to);
  r.to = std::clamp(r.to, all.from, all.to);
  return r;
}

// Counts the frames as the header does (frames rendered), and names the
// frame after the last present apart, so that the two never disagree.
std::string Frames(analysis::FrameRange r, const analysis::FrameTable& table) {
  const analysis::FrameRange complete = table.Complete();
  const uint64_t rendered = r.from > complete.to ? 0 : table.CountIn({r.from, std::min(r.to, complete.to)});
  const bool unended = table.CountIn(r) > rendered;
  if (r.from == r.to) return "frame " + std::to_string(r.from) + (unended ? " (after the last present)" : "");
  std::string text = "frames " + std::to_string(r.from) + "\xE2\x80\x93" + std::to_string(r.to) + " (";
  if (!unended) return text + std::to_string(rendered) + " frames)";
  return text + std::to_string(rendered) + " rendered + frame " + std::to_string(r.to) + " after the last present)";
}

}  // namespace

const std::optional<analysis::FrameRange>* Selection::RangeOf(Focus f) const {
  if (f == Focus::kRangeA && range_a) return &range_a;
  if (f == Focus::kRangeB && range_b) return &range_b;
  return nullptr;
}

analysis::FrameRange Selection::FocusRange(analysis::FrameRange all) const {
  if (focus == Focus::kFrame && frame) return Clip({*frame, *frame}, all);
  if (const auto* r = RangeOf(focus)) return Clip(**r, all);
  return all;
}

analysis::FrameRange Selection::PickedRange(analysis::FrameRange all) const {
  if (const auto* r = RangeOf(range_focus)) return Clip(**r, all);
  return all;
}

std::string Selection::Describe(Focus f, const analysis::FrameTable& table) const {
  const analysis::FrameRange all = table.All();
  switch (f) {
    case Focus::kFrame:
      if (frame) {
        std::string text = Frames(Clip({*frame, *frame}, all), table);
        text[0] = 'F';
        return text;
      }
      break;
    case Focus::kRangeA:
      if (range_a) return "Range A: " + Frames(Clip(*range_a, all), table);
      break;
    case Focus::kRangeB:
      if (range_b) return "Range B: " + Frames(Clip(*range_b, all), table);
      break;
    case Focus::kAll:
      break;
  }
  return "All " + Frames(all, table);
}

std::string Selection::Describe(const analysis::FrameTable& table) const { return Describe(focus, table); }

std::string Selection::DescribePicked(const analysis::FrameTable& table) const {
  return Describe(RangeOf(range_focus) ? range_focus : Focus::kAll, table);
}

void Selection::Clear() {
  Selection fresh;
  fresh.search = std::move(search);
  fresh.size_bin = size_bin;
  fresh.group_by_function = group_by_function;
  fresh.flame_metric = flame_metric;
  fresh.flame_function = std::move(flame_function);
  fresh.live_by_filter = live_by_filter;
  *this = std::move(fresh);
}

void Selection::Apply(const ViewerOptions& options, const analysis::FrameTable& frames) {
  // The most specific pick is applied last: it is what the detail shows.
  std::string error;
  if (const analysis::Phase* phase = options.phase.empty() ? nullptr
                                     : analysis::FindPhaseByName(frames.phases, options.phase, &error))
    SelectPhase(*phase);
  if (options.range_b) SelectRangeB(*options.range_b);
  if (options.range) SelectRangeA(*options.range);
  if (options.frame) SelectFrame(*options.frame);
  if (!options.diff_a.empty()) marker_a = options.diff_a;
  if (!options.diff_b.empty()) marker_b = options.diff_b;
  search = options.search;
  size_bin = options.size_bin;
  group_by_function = options.group_by_function;
  if (options.flame_metric) flame_metric = *options.flame_metric;
  flame_function = options.flame_function;
  live_by_filter = options.live_by_filter;
}

}  // namespace memframe::viewer
