// memframe-viewer: parse the command line and pick a mode; nothing else.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <string>

#include "memframe/output_file.h"

#include "modes.h"
#include "options.h"

int main(int argc, char** argv) {
  using namespace memframe::viewer;
  ViewerOptions options;
  std::string error;
  if (!ParseViewerOptions(argc, argv, &options, &error)) {
    memframe::ErrorLine(std::cerr, "memframe-viewer") << error << "\n(see memframe-viewer --help)\n";
    return memframe::kExitMemframeError;
  }
  if (options.help) {
    std::fputs(ViewerUsage().c_str(), stdout);
    return 0;
  }
  if (options.version) {
    std::printf("memframe-viewer %s\n", MEMFRAME_VERSION);
    return 0;
  }
  if (!options.generate_man.empty()) {
    std::ofstream page(options.generate_man);
    WriteViewerManPage(MEMFRAME_VERSION, page);
    page.close();
    if (page) return 0;
    memframe::ErrorLine(std::cerr, "memframe-viewer") << "cannot write " << options.generate_man << '\n';
    return memframe::kExitMemframeError;
  }
  // --dump-view-data and --measure-fps write their results on stdout: a full
  // disk behind it is a failure, not a silent loss.
  memframe::CheckedStdout checked_stdout;
  int status = !options.dump_view.empty()          ? RunDumpViewData(options)
               : !options.screenshot_path.empty()  ? RunScreenshot(options)
               : options.measure_fps_seconds > 0    ? RunMeasureFps(options)
                                                    : RunInteractive(options);
  std::string problem = checked_stdout.Finish();
  if (!problem.empty()) {
    memframe::ErrorLine(std::cerr, "memframe-viewer") << "writing the output: " << problem << '\n';
    return memframe::kExitMemframeError;
  }
  return status;
}
