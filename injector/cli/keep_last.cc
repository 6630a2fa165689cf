#include "keep_last.h"

#include <cstdlib>
#include <iostream>

#include "kept_window.h"
#include "live_server.h"
#include "memframe/command_line.h"
#include "recorder.h"

#ifdef MEMFRAME_WITH_ANALYSIS
#include "memframe/report/report.h"
#endif

namespace memframe::injector {

bool ParseKeepLast(const std::string& text, uint64_t* ms) {
  static const struct {
    const char* suffix;
    double ms;
  } kUnits[] = {{"ms", 1}, {"s", 1000}, {"m", 60'000}, {"h", 3'600'000}};
  std::string number = text;
  double unit = 1000;
  for (const auto& u : kUnits) {
    const std::string suffix = u.suffix;
    if (text.size() > suffix.size() && text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0 &&
        isdigit(static_cast<unsigned char>(text[text.size() - suffix.size() - 1]))) {
      number = text.substr(0, text.size() - suffix.size());
      unit = u.ms;
      break;
    }
  }
  double value = 0;
  if (!ParseDouble(number, &value)) return false;
  const double total = value * unit;
  if (!(total >= 1000 && total <= 7 * 24 * 3'600'000.0)) return false;
  *ms = static_cast<uint64_t>(total);
  return true;
}

bool FinishWindow(KeptWindow& window, const std::string& output, Recorder& recorder, LiveServer* live,
                  wire::RecorderInfo info, bool force, bool summary) {
  std::string error;
  bool saved = window.Save(output, info, "end of run", force, &error);
  if (live) {
    recorder.AttachLive(nullptr);
    live->Finish(1000);
  }
  if (!saved) {
    std::cerr << "memframe: cannot write the window to " << output << ": " << error << '\n';
    return false;
  }
#ifdef MEMFRAME_WITH_ANALYSIS
  if (summary) analysis::PrintRunSummary(output, std::cerr, std::cerr);
#else
  (void)summary;
#endif
  std::cerr << "memframe: window written to " << output << "; its segments took at most " << window.max_disk_bytes()
            << " bytes on disk (" << window.max_segments() << " segments at once)\n";
  return true;
}

}  // namespace memframe::injector
