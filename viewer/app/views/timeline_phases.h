// The phases on the timeline (phases.h): a row of buttons, one per phase,
// named as the reports name them ("load 2"), a click selecting it
// (Selection::SelectPhase: every tab follows); and the bands over the bars
// for start-up, each load and each unload, in their own colours, labelled
// with their names. Its own file so that the timeline's other layers stay
// apart.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <imgui.h>
#include <nlohmann/json.hpp>

#include "memframe/analysis/phases.h"
#include "timeline_columns.h"
#include "view.h"
#include "views/timeline_draw.h"

namespace memframe::viewer {

// The buttons, on the current line, as many as fit; the rest in a "+N"
// menu. The phase the range picked is shows pressed.
void DrawPhaseButtons(ViewContext& ctx, const std::vector<analysis::Phase>& phases);

void DrawPhaseBands(const analysis::FrameTable& table, const std::vector<analysis::Phase>& phases,
                    const PlotRect& plot, const TimelineViewport& viewport);

// The band a phase is drawn as: its colour and label; none for steady play
// and the teardown.
struct PhaseBand {
  ImU32 colour = 0;
  std::string label;  // PhaseName: "load 2"
};
std::optional<PhaseBand> PhaseBandOf(const analysis::Phase& phase);

// {"label": "load 2"} or null, for --dump-view-data.
nlohmann::json PhaseBandJson(const analysis::Phase& phase);

}  // namespace memframe::viewer
