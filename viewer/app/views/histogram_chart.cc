#include "views/histogram_chart.h"

#include <algorithm>
#include <string>

#include "format.h"
#include "style.h"

namespace memframe::viewer {

namespace {

// The lower edge of a bin, short enough to fit under a bar: "32", "4K", "2M".
std::string ShortEdge(int bin) {
  double v = static_cast<double>(analysis::SizeBinMin(bin));
  const int unit = analysis::ScaleToBinaryUnit(&v);
  return std::to_string(static_cast<uint64_t>(v)) + (unit ? std::string(1, analysis::kBinaryUnits[unit][0]) : "");
}

}  // namespace

void DrawHistogramChart(const analysis::SizeHistogram& h, ImVec2 size, std::optional<int>* size_bin) {
  ImDrawList* draw = ImGui::GetWindowDrawList();
  const ImVec2 origin = ImGui::GetCursorScreenPos();
  ImGui::InvisibleButton("histogram_chart", size);
  const bool hovered = ImGui::IsItemHovered();
  // No background of its own: the chart lies on its pane's.
  if (h.allocations == 0) {
    const char* text = "No allocations in the selected frames";
    ImVec2 t = ImGui::CalcTextSize(text);
    draw->AddText(ImVec2(origin.x + (size.x - t.x) / 2, origin.y + (size.y - t.y) / 2), palette::kAxisText, text);
    return;
  }
  // At least eight bins wide so that one busy bin does not become one wall.
  int first = h.first_bin, last = h.last_bin;
  while (last - first < 7) {
    if (first > 0) first--;
    if (last - first < 7 && last < analysis::kSizeBins - 1) last++;
  }
  const int bins = last - first + 1;
  const float text_h = ImGui::GetTextLineHeight();
  const float left = origin.x + 8, right = origin.x + size.x - 8;
  const float top = origin.y + text_h + 10, bottom = origin.y + size.y - text_h - 8;
  const float bin_w = (right - left) / bins;
  uint64_t max_count = 1, max_bytes = 1;
  for (int b = first; b <= last; ++b) {
    max_count = std::max(max_count, h.bins[b].allocations);
    max_bytes = std::max(max_bytes, h.bins[b].bytes);
  }
  for (int i = 1; i <= 4; ++i) {  // quarter grid lines
    float y = bottom - (bottom - top) * i / 4;
    draw->AddLine(ImVec2(left, y), ImVec2(right, y), palette::kGrid);
  }
  // Legend and scales in one line above the bars.
  std::string legend_count = "\xE2\x96\xA0 allocations (max " + FormatCount(max_count) + ")";
  std::string legend_bytes = "\xE2\x96\xA0 bytes (max " + FormatBytes(max_bytes) + ")";
  draw->AddText(ImVec2(left, origin.y + 4), palette::kBar, legend_count.c_str());
  draw->AddText(ImVec2(left + ImGui::CalcTextSize(legend_count.c_str()).x + 16, origin.y + 4), palette::kBytes,
                legend_bytes.c_str());

  const float label_w = ImGui::CalcTextSize("256K").x + 6;
  const int label_every = std::max(1, static_cast<int>(label_w / bin_w) + 1);
  int hovered_bin = -1;
  const ImVec2 mouse = ImGui::GetIO().MousePos;
  for (int b = first; b <= last; ++b) {
    const float x0 = left + (b - first) * bin_w;
    const float pad = std::min(3.0f, bin_w * 0.1f);
    const float bar_w = (bin_w - 2 * pad) / 2;
    const float hc = (bottom - top) * static_cast<float>(h.bins[b].allocations) / max_count;
    const float hb = (bottom - top) * static_cast<float>(h.bins[b].bytes) / max_bytes;
    if (hovered && mouse.x >= x0 && mouse.x < x0 + bin_w) {
      hovered_bin = b;
      draw->AddRectFilled(ImVec2(x0, top), ImVec2(x0 + bin_w, bottom), palette::kGrid);
    }
    if (h.bins[b].allocations) {
      draw->AddRectFilled(ImVec2(x0 + pad, bottom - std::max(1.0f, hc)), ImVec2(x0 + pad + bar_w, bottom), palette::kBar);
      draw->AddRectFilled(ImVec2(x0 + pad + bar_w, bottom - std::max(1.0f, hb)), ImVec2(x0 + pad + 2 * bar_w, bottom),
                          palette::kBytes);
    }
    if (*size_bin == b)
      draw->AddRect(ImVec2(x0, top - 2), ImVec2(x0 + bin_w, bottom + 1), palette::kSelected, 0, 0, 2);
    if ((b - first) % label_every == 0) {
      std::string edge = ShortEdge(b);
      draw->AddText(ImVec2(x0 + 2, bottom + 3), palette::kAxisText, edge.c_str());
    }
  }
  draw->AddLine(ImVec2(left, bottom), ImVec2(right, bottom), palette::kAxisText);
  if (hovered_bin >= 0) {
    const auto& bin = h.bins[hovered_bin];
    ImGui::BeginTooltip();
    ImGui::Text("%s", FormatSizeBin(hovered_bin).c_str());
    ImGui::Text("%s allocations (%.1f%%)", FormatCount(bin.allocations).c_str(), 100.0 * bin.allocations / h.allocations);
    ImGui::Text("%s (%.1f%%)", FormatBytes(bin.bytes).c_str(), h.bytes ? 100.0 * bin.bytes / h.bytes : 0.0);
    ImGui::TextColored(palette::kDimText, *size_bin == hovered_bin ? "click: every size again"
                                                                   : "click: only the sites that made these sizes");
    ImGui::EndTooltip();
    if (ImGui::IsItemClicked()) {
      if (*size_bin == hovered_bin) size_bin->reset();
      else *size_bin = hovered_bin;
    }
  }
}

}  // namespace memframe::viewer
