// Mismatched frees on the timeline (mismatches.h): a red triangle on the
// plot's bottom edge at the frame where each group of mismatches first
// happened, the group's kind, families and count on hover. Its own file so
// that the timeline's other layers stay apart.
#pragma once

#include "session.h"
#include "timeline_columns.h"
#include "views/timeline_draw.h"

namespace memframe::viewer {

// Draws the marks; returns the index (in Session::Mismatches) of the one
// under the mouse, or -1.
int DrawMismatchMarks(Session& session, const PlotRect& plot, const TimelineViewport& viewport);
void DrawMismatchTooltip(Session& session, int mismatch);

}  // namespace memframe::viewer
