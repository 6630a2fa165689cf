#include "views/timeline_phases.h"

#include <algorithm>

#include "format.h"
#include "memframe/report/phase_title.h"
#include "style.h"

namespace memframe::viewer {

namespace {

// A phase button; true when clicked.
bool PhaseButton(ViewContext& ctx, const analysis::Phase& p, const std::string& name, bool current) {
  if (current) ImGui::PushStyleColor(ImGuiCol_Button, ImGui::GetStyleColorVec4(ImGuiCol_ButtonActive));
  const bool clicked = ImGui::SmallButton(name.c_str());
  if (current) ImGui::PopStyleColor();
  if (ImGui::IsItemHovered())
    ImGui::SetTooltip("%s\n%s allocated in %s blocks, live heap %s -> %s\n"
                      "Click: B = its frames (every tab shows them), A = the frame before (the diff: what it left)",
                      analysis::PhaseTitle(p, ctx.session.frames()).c_str(), FormatBytes(p.bytes_allocated).c_str(),
                      FormatCount(p.allocations).c_str(), FormatBytes(p.live_before).c_str(),
                      FormatBytes(p.live_after).c_str());
  return clicked;
}

}  // namespace

void DrawPhaseButtons(ViewContext& ctx, const std::vector<analysis::Phase>& phases) {
  ImGui::AlignTextToFramePadding();
  ImGui::TextColored(palette::kDimText, "Phases (click: select it):");
  const analysis::FrameRange picked = ctx.selection.PickedRange(ctx.session.AllFrames());
  const bool has_picked = ctx.selection.has_picked_range();
  const ImGuiStyle& style = ImGui::GetStyle();
  // Room kept at the end for the menu of the phases that do not fit.
  const float more_width = ImGui::CalcTextSize("+99 more").x + style.FramePadding.x * 4 + style.ItemSpacing.x;
  size_t shown = 0;
  for (; shown < phases.size(); ++shown) {
    const analysis::Phase& p = phases[shown];
    const std::string name = analysis::PhaseName(p);
    const float width = ImGui::CalcTextSize(name.c_str()).x + style.FramePadding.x * 2 + style.ItemSpacing.x;
    const bool last = shown + 1 == phases.size();
    const float room = ImGui::GetWindowPos().x + ImGui::GetWindowContentRegionMax().x - ImGui::GetItemRectMax().x;
    if (room < width + (last ? 0 : more_width)) break;
    ImGui::SameLine();
    ImGui::PushID(static_cast<int>(shown));
    if (PhaseButton(ctx, p, name, has_picked && picked == p.frames)) ctx.selection.SelectPhase(p);
    ImGui::PopID();
  }
  if (shown == phases.size()) return;
  ImGui::SameLine();
  const std::string more = "+" + std::to_string(phases.size() - shown) + " more";
  if (ImGui::SmallButton(more.c_str())) ImGui::OpenPopup("more_phases");
  if (ImGui::BeginPopup("more_phases")) {
    for (size_t i = shown; i < phases.size(); ++i) {
      const analysis::Phase& p = phases[i];
      const std::string title = analysis::PhaseTitle(p, ctx.session.frames());
      if (ImGui::Selectable(title.c_str(), has_picked && picked == p.frames)) ctx.selection.SelectPhase(p);
    }
    ImGui::EndPopup();
  }
}

std::optional<PhaseBand> PhaseBandOf(const analysis::Phase& p) {
  switch (p.kind) {
    case analysis::PhaseKind::kSteady:
    case analysis::PhaseKind::kTeardown: return std::nullopt;
    case analysis::PhaseKind::kLoad: return PhaseBand{palette::kPhaseLoad, analysis::PhaseName(p)};
    case analysis::PhaseKind::kUnload: return PhaseBand{palette::kPhaseUnload, analysis::PhaseName(p)};
    case analysis::PhaseKind::kStartup:
    case analysis::PhaseKind::kAttached: return PhaseBand{palette::kPhaseStartup, analysis::PhaseName(p)};
  }
  return std::nullopt;
}

void DrawPhaseBands(const analysis::FrameTable& table, const std::vector<analysis::Phase>& phases,
                    const PlotRect& plot, const TimelineViewport& viewport) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  draw->PushClipRect(plot.min, plot.max, true);
  for (const analysis::Phase& p : phases) {
    const std::optional<PhaseBand> band = PhaseBandOf(p);
    if (!band) continue;
    // Phases are frame numbers; the timeline's x is the row.
    const size_t first = table.LowerBound(p.frames.from), end = table.LowerBound(p.frames.to + 1);
    float x0 = plot.min.x + static_cast<float>(viewport.XOf(static_cast<double>(first)));
    float x1 = plot.min.x + static_cast<float>(viewport.XOf(static_cast<double>(end)));
    x1 = std::max(x1, x0 + 2);  // a one-frame load stays visible zoomed out
    draw->AddRectFilled(ImVec2(x0, plot.min.y), ImVec2(x1, plot.max.y), band->colour);
    draw->AddText(ImVec2(x1 + 2, plot.max.y - ImGui::GetTextLineHeight() - 14), band->colour | IM_COL32_A_MASK,
                  band->label.c_str());
  }
  draw->PopClipRect();
}

nlohmann::json PhaseBandJson(const analysis::Phase& phase) {
  const std::optional<PhaseBand> band = PhaseBandOf(phase);
  return band ? nlohmann::json{{"label", band->label}} : nlohmann::json(nullptr);
}

}  // namespace memframe::viewer
