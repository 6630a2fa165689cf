// memframe-viewer: parse the command line and pick a mode; nothing else.
#include <cstdio>
#include <string>

#include "modes.h"
#include "options.h"

int main(int argc, char** argv) {
  using namespace memframe::viewer;
  ViewerOptions options;
  std::string error;
  if (!ParseViewerOptions(argc, argv, &options, &error)) {
    std::fprintf(stderr, "memframe-viewer: %s\n%s", error.c_str(), ViewerUsage().c_str());
    return 2;
  }
  if (options.help) {
    std::fputs(ViewerUsage().c_str(), stdout);
    return 0;
  }
  if (!options.dump_view.empty()) return RunDumpViewData(options);
  if (!options.screenshot_path.empty()) return RunScreenshot(options);
  if (options.measure_fps_seconds > 0) return RunMeasureFps(options);
  return RunInteractive(options);
}
