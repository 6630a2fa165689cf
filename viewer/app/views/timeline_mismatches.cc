#include "views/timeline_mismatches.h"

#include <cmath>

#include <imgui.h>

#include "format.h"
#include "style.h"

namespace memframe::viewer {

namespace {
constexpr float kGlyph = 6;  // half the triangle's width, and its height
}  // namespace

int DrawMismatchMarks(Session& session, const PlotRect& plot, const TimelineViewport& viewport) {
  const auto& mismatches = session.Mismatches().mismatches;
  if (mismatches.empty()) return -1;
  const analysis::FrameTable& table = session.frames();
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  const ImU32 colour = ImGui::ColorConvertFloat4ToU32(palette::kError);
  int hovered = -1;
  draw->PushClipRect(ImVec2(plot.min.x - kGlyph, plot.min.y), ImVec2(plot.max.x + kGlyph, plot.max.y + 1), true);
  for (size_t i = 0; i < mismatches.size(); ++i) {
    // Frame numbers to rows, as the markers do.
    const size_t row = table.LowerBound(mismatches[i].first_frame);
    const float x = std::floor(plot.min.x + static_cast<float>(viewport.XOf(row + 0.5))) + 0.5f;
    if (x < plot.min.x || x > plot.max.x) continue;
    const float bottom = plot.max.y;
    draw->AddTriangleFilled(ImVec2(x, bottom - 2 * kGlyph), ImVec2(x - kGlyph, bottom), ImVec2(x + kGlyph, bottom), colour);
    if (std::fabs(mouse.x - x) <= kGlyph && mouse.y >= bottom - 2 * kGlyph - 2 && mouse.y <= bottom + 2)
      hovered = static_cast<int>(i);
  }
  draw->PopClipRect();
  return hovered;
}

void DrawMismatchTooltip(Session& session, int index) {
  const analysis::Mismatch& m = session.Mismatches().mismatches[static_cast<size_t>(index)];
  ImGui::BeginTooltip();
  ImGui::TextColored(palette::kError, "Mismatched free");
  ImGui::SameLine();
  switch (m.kind) {
    case analysis::Mismatch::Kind::kFamily:
      ImGui::Text("%s block freed with %s", analysis::AllocName(m.alloc_family), analysis::FreeName(m.free_family));
      break;
    case analysis::Mismatch::Kind::kDoubleFree: ImGui::TextUnformatted("double free"); break;
    case analysis::Mismatch::Kind::kFreedAfterRelease:
      ImGui::TextUnformatted("free after its allocator's release");
      break;
    case analysis::Mismatch::Kind::kUnknownPointer: ImGui::TextUnformatted("free of a pointer never allocated"); break;
  }
  ImGui::Text("%s time%s, first in frame %llu", FormatCount(m.count).c_str(), m.count == 1 ? "" : "s",
              static_cast<unsigned long long>(m.first_frame));
  if (m.alloc_stack) {
    const SiteLabel& label = session.Label(m.alloc_stack);
    ImGui::TextColored(palette::kDimText, "allocated in %s", label.name.c_str());
  }
  ImGui::TextColored(palette::kDimText, "The Mismatches tab has both stacks.");
  ImGui::EndTooltip();
}

}  // namespace memframe::viewer
