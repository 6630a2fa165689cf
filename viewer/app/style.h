// Fonts and the colours that carry meaning in every view.
#pragma once

#include <imgui.h>

namespace memframe::viewer {

namespace palette {
// Timeline and histogram bars: an ordinary frame / allocations.
inline constexpr ImU32 kBar = IM_COL32(84, 138, 204, 255);
// A frame above its steady phase's spike threshold (Phase::allocation_spike / bytes_spike).
inline constexpr ImU32 kSpike = IM_COL32(232, 93, 62, 255);
// Time spent inside the allocator (overlay line).
inline constexpr ImU32 kTime = IM_COL32(240, 196, 64, 255);
// Bytes, wherever bytes and counts are shown side by side.
inline constexpr ImU32 kBytes = IM_COL32(102, 187, 122, 255);
// The selected frame, and the two ranges of a comparison.
inline constexpr ImU32 kSelected = IM_COL32(255, 255, 255, 230);
inline constexpr ImU32 kRangeA = IM_COL32(70, 150, 255, 255);
inline constexpr ImU32 kRangeB = IM_COL32(235, 130, 235, 255);
// Named markers (snapshots, game markers) on the timeline.
inline constexpr ImU32 kMarker = IM_COL32(120, 220, 170, 255);
// Phase bands over the timeline's bars (start-up, loads), faint.
inline constexpr ImU32 kPhaseStartup = IM_COL32(150, 120, 255, 40);
inline constexpr ImU32 kPhaseLoad = IM_COL32(255, 190, 60, 48);
inline constexpr ImU32 kPhaseUnload = IM_COL32(80, 200, 255, 44);
inline constexpr ImU32 kGrid = IM_COL32(255, 255, 255, 28);
inline constexpr ImU32 kAxisText = IM_COL32(160, 166, 178, 255);
inline const ImVec4 kDimText = ImVec4(0.62f, 0.65f, 0.70f, 1);
inline const ImVec4 kWarning = ImVec4(1.0f, 0.72f, 0.30f, 1);
inline const ImVec4 kError = ImVec4(1.0f, 0.42f, 0.38f, 1);

// `colour` with its alpha replaced.
inline ImU32 WithAlpha(ImU32 colour, int alpha) {
  return (colour & ~IM_COL32_A_MASK) | (static_cast<ImU32>(alpha) << IM_COL32_A_SHIFT);
}
}  // namespace palette

struct Fonts {
  ImFont* ui = nullptr;    // proportional, for labels and tables
  ImFont* mono = nullptr;  // for stacks: file:line columns line up
};

// Loads DejaVu from the system font folder when present (the ImGui default
// font is too small to read all day), else the built-in font; dark theme.
Fonts SetUpStyle();

}  // namespace memframe::viewer
