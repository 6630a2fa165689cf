#include "selection.h"

#include <algorithm>

namespace memframe::viewer {

namespace {

analysis::FrameRange Clip(analysis::FrameRange r, analysis::FrameRange all) {
  r.from = std::clamp(r.from, all.from, all.to);
  r.to = std::clamp(r.to, all.from, all.to);
  return r;
}

std::string Frames(analysis::FrameRange r) {
  if (r.from == r.to) return "frame " + std::to_string(r.from);
  return "frames " + std::to_string(r.from) + "\xE2\x80\x93" + std::to_string(r.to) + " (" +
         std::to_string(r.size()) + " frames)";
}

}  // namespace

analysis::FrameRange Selection::FocusRange(analysis::FrameRange all) const {
  switch (focus) {
    case Focus::kFrame:
      if (frame) return Clip({*frame, *frame}, all);
      break;
    case Focus::kRangeA:
      if (range_a) return Clip(*range_a, all);
      break;
    case Focus::kRangeB:
      if (range_b) return Clip(*range_b, all);
      break;
    case Focus::kAll:
      break;
  }
  return all;
}

std::string Selection::Describe(analysis::FrameRange all) const {
  analysis::FrameRange r = FocusRange(all);
  switch (focus) {
    case Focus::kFrame: return "Frame " + std::to_string(r.from);
    case Focus::kRangeA: return "Range A: " + Frames(r);
    case Focus::kRangeB: return "Range B: " + Frames(r);
    case Focus::kAll: break;
  }
  return "All " + Frames(r);
}

}  // namespace memframe::viewer
