// `--keep-last DURATION` of `memframe run` and `memframe attach`: the option
// and the end of such a recording (kept_window.h keeps the window).
#pragma once

#include <cstdint>
#include <string>

#include "memframe.pb.h"

namespace memframe::injector {

class KeptWindow;
class LiveServer;
class Recorder;

// "30s", "10m", "2h", "500ms" or plain seconds; false unless all of `text`
// is a duration from 1 s to 7 days.
bool ParseKeepLast(const std::string& text, uint64_t* ms);

// Saves the window to `output` with `info` as its closing record, ends the
// live stream, says on stderr what was kept and prints the summary of the
// window when `summary`. False if it could not be written (said).
bool FinishWindow(KeptWindow& window, const std::string& output, Recorder& recorder, LiveServer* live,
                  wire::RecorderInfo info, bool force, bool summary);

}  // namespace memframe::injector
