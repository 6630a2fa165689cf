// The command line of memframe-viewer.
#pragma once

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>

#include <vector>

#include "flame.h"
#include "memframe/analysis/call_sites.h"
#include "memframe/analysis/frame_stats.h"
#include "memframe/analysis/module_class.h"
#include "memframe/command_line.h"

namespace memframe::viewer {

struct ViewerOptions {
  std::string capture_path;     // "" = start without a capture
  std::string screenshot_path;  // --screenshot FILE: render, write a PNG, exit
  std::string view;             // --view NAME
  std::string dump_view;        // --dump-view-data NAME: JSON on stdout, no window
  std::optional<uint64_t> frame;               // --frame N
  std::optional<analysis::FrameRange> range;   // --range A:B (selects range A)
  std::optional<analysis::FrameRange> range_b;  // --range-b A:B
  std::string phase;            // --phase N|NAME: B = the phase, A = the frame before (a phase button)
  std::string diff_a, diff_b;   // --diff-a / --diff-b MARKER: the diff's A / B at a named marker
  std::string follow_socket;    // --follow SOCKET: a run being recorded, kept current
  double measure_fps_seconds = 0;  // --measure-fps SECONDS: render --view for that long, print frame times
  bool measure_loading = false;    // --measure-loading: from the first picture, through the whole load, then SECONDS
  std::vector<analysis::ModuleClassRule> module_class_rules;  // --module-class PATTERN=CLASS, in order
  analysis::ClassFilter classes;  // --only LIST / --hide LIST: the classes every view shows
  // The row filters and the flame graph's picks (Selection), so that
  // --dump-view-data and --screenshot show them.
  std::string search;                 // --search TEXT
  std::optional<int> size_bin;        // --size-bin N (analysis::SizeBin numbering)
  bool group_by_function = false;     // --group-functions
  std::optional<FlameMetric> flame_metric;  // --flame-metric allocations|bytes|live
  std::string flame_function;         // --flame-function NAME
  bool live_by_filter = false;        // --live-by filter (default: class)
  // --first-picture: --screenshot or --dump-view-data timeline stop at the
  // first picture (from the summary index when it matches, else the whole load).
  bool first_picture = false;
  bool all_frames = false;        // --all-frames: Hidden and Lifetimes judge every frame, not steady play alone
  std::vector<std::string> threads;  // --thread NAME|TID: the threads every view shows (empty = all)
  int width = 1280;   // --size WxH
  int height = 800;
  bool help = false;
  bool version = false;  // --version
  std::string generate_man;  // --generate-man FILE (hidden): write the man page there (the build does)
};

// False with *error on a bad option; `help` is set for -h/--help. Values
// follow their option as `--opt value` or `--opt=value`.
bool ParseViewerOptions(int argc, const char* const* argv, ViewerOptions* options, std::string* error);

// The options, each with what it stores into *options: the one definition
// that parsing, --help and the man page read.
std::vector<CommandOption> ViewerOptionTable(ViewerOptions* options);

// "" when --frame, --range, --range-b and --phase name frames or a phase of
// the capture, else what is wrong ("frame 900 is not in the capture (frames
// 0..299)"): a pick past the end is an error, not an empty view.
std::string FramePicksProblem(const ViewerOptions& options, const analysis::FrameTable& frames);

std::string ViewerUsage();
// memframe-viewer(1).
void WriteViewerManPage(const std::string& version, std::ostream& out);

}  // namespace memframe::viewer
