// The ways memframe-viewer runs. Each returns the process exit code.
#pragma once

#include "options.h"

namespace memframe::viewer {

// The window, until it is closed.
int RunInteractive(const ViewerOptions& options);
// --screenshot: loads, draws the view offscreen, writes a PNG. 0 on
// success, 1 when the capture or the PNG fails, 2 for an unknown view.
int RunScreenshot(const ViewerOptions& options);
// --measure-fps: loads, then draws --view offscreen as fast as it can for
// the given seconds and prints frames drawn and the frame-time percentiles.
int RunMeasureFps(const ViewerOptions& options);
// --dump-view-data: the JSON of what a view shows, on stdout, no window.
int RunDumpViewData(const ViewerOptions& options);

}  // namespace memframe::viewer
