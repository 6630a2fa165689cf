#include "options.h"

#include <charconv>
#include <cstring>
#include <sstream>

#include "memframe/analysis/phases.h"
#include "memframe/analysis/size_histogram.h"
#include "memframe/man_page.h"
#include "memframe/parse_number.h"

namespace memframe::viewer {

namespace {

bool ParseU32(std::string_view text, uint32_t* out) { return ParseInteger(text, out, 0u, UINT32_MAX); }

bool ParseU64(std::string_view text, uint64_t* out) {
  return ParseInteger(text, out, uint64_t{0}, UINT64_MAX);
}

bool ParseRange(std::string_view text, analysis::FrameRange* range) {
  size_t colon = text.find(':');
  if (colon == std::string_view::npos) return false;
  return ParseU64(text.substr(0, colon), &range->from) && ParseU64(text.substr(colon + 1), &range->to) &&
         range->from <= range->to;
}

bool ParseSize(std::string_view text, int* width, int* height) {
  size_t x = text.find('x');
  uint32_t w = 0, h = 0;
  if (x == std::string_view::npos || !ParseU32(text.substr(0, x), &w) || !ParseU32(text.substr(x + 1), &h)) return false;
  // Bounds keep a typo from asking the GL driver for a gigapixel buffer.
  if (w < 320 || h < 240 || w > 8192 || h > 8192) return false;
  *width = static_cast<int>(w);
  *height = static_cast<int>(h);
  return true;
}

std::string ApplyRange(const std::string& option, const std::string& value,
                       std::optional<analysis::FrameRange>* out) {
  analysis::FrameRange r;
  if (!ParseRange(value, &r)) return option + " needs FROM:TO with FROM <= TO, got '" + value + "'";
  *out = r;
  return std::string();
}

}  // namespace

std::vector<CommandOption> ViewerOptionTable(ViewerOptions* o) {
  auto store = [](std::string* out, const char* wants) {
    return [out, wants](const std::string& v) {
      if (v.empty() && wants) return std::string(wants);
      *out = v;
      return std::string();
    };
  };
  return {
      {"--version", "", "show the version", [o](const std::string&) { return (o->version = true), std::string(); }},
      {"--follow", "SOCKET", "follow a run being recorded, in place of CAPTURE (the live socket `memframe run` prints)",
       store(&o->follow_socket, "--follow needs the live socket's path")},
      {"--screenshot", "FILE", "render --view into a PNG and exit", store(&o->screenshot_path, nullptr)},
      {"--view", "NAME", "the view --screenshot or --measure-fps renders (the window shows them all)",
       store(&o->view, nullptr)},
      {"--dump-view-data", "NAME", "print a view's data as JSON and exit, no window", store(&o->dump_view, nullptr)},
      {"--frame", "N", "select frame N",
       [o](const std::string& v) {
         uint64_t f = 0;
         if (!ParseU64(v, &f)) return "--frame needs a frame number, got '" + v + "'";
         o->frame = f;
         return std::string();
       }},
      {"--range", "A:B", "select frames A to B", [o](const std::string& v) { return ApplyRange("--range", v, &o->range); }},
      {"--range-b", "A:B", "the second range (the diff's B)",
       [o](const std::string& v) { return ApplyRange("--range-b", v, &o->range_b); }},
      {"--phase", "N|NAME",
       "select a phase as its button does: B = its frames, A = the frame before (`memframe report phases` lists them)",
       store(&o->phase, "--phase needs a phase's number or name")},
      {"--diff-a", "MARKER", "the snapshot diff's A at a named marker", store(&o->diff_a, "--diff-a needs a marker name")},
      {"--diff-b", "MARKER", "the snapshot diff's B at a named marker", store(&o->diff_b, "--diff-b needs a marker name")},
      {"--module-class", "PATTERN=CLASS", "class the modules PATTERN matches as CLASS (repeatable, first match wins)",
       [o](const std::string& v) {
         analysis::ModuleClassRule rule;
         std::string error;
         if (!analysis::ParseModuleClassRule(v, &rule, &error)) return error;
         o->module_class_rules.push_back(std::move(rule));
         return std::string();
       }},
      {"--only", "CLASSES", "show the sites of these module classes (comma-separated: game, engine, driver, system)",
       [o](const std::string& v) {
         std::string error;
         return analysis::ApplyClassList(v, true, &o->classes, &error) ? std::string() : error;
       }},
      {"--hide", "CLASSES", "leave out the sites of these module classes",
       [o](const std::string& v) {
         std::string error;
         return analysis::ApplyClassList(v, false, &o->classes, &error) ? std::string() : error;
       }},
      {"--first-picture", "",
       "--screenshot or --dump-view-data timeline: stop at the first picture (from CAPTURE.mfi when it matches)",
       [o](const std::string&) { return (o->first_picture = true), std::string(); }},
      {"--all-frames", "", "Hidden and Lifetimes judge every frame, not steady play alone",
       [o](const std::string&) { return (o->all_frames = true), std::string(); }},
      {"--thread", "NAME|TID", "show only this thread's allocations (repeatable)",
       [o](const std::string& v) {
         if (v.empty()) return std::string("--thread needs a thread name or TID");
         o->threads.push_back(v);
         return std::string();
       }},
      {"--search", "TEXT", "the tables' row filter by text", store(&o->search, nullptr)},
      {"--size-bin", "N", "the tables' row filter by allocation size bin",
       [o](const std::string& v) {
         uint32_t bin = 0;
         if (!ParseU32(v, &bin) || bin >= analysis::kSizeBins)
           return "--size-bin needs a size bin from 0 to " + std::to_string(analysis::kSizeBins - 1) + ", got '" + v +
                  "'";
         o->size_bin = static_cast<int>(bin);
         return std::string();
       }},
      {"--group-functions", "", "group the tables' rows by function",
       [o](const std::string&) { return (o->group_by_function = true), std::string(); }},
      {"--flame-metric", "allocations|bytes|live", "the flame graph's metric",
       [o](const std::string& v) {
         o->flame_metric = ParseFlameMetric(v);
         return o->flame_metric ? std::string() : "--flame-metric needs allocations, bytes or live, got '" + v + "'";
       }},
      {"--flame-function", "NAME", "the flame graph's function", store(&o->flame_function, nullptr)},
      {"--live-by", "class|filter",
       "the live-memory graph stacked by module class, or the sites --search and --size-bin keep against the others",
       [o](const std::string& v) {
         if (v != "class" && v != "filter") return "--live-by needs class or filter, got '" + v + "'";
         o->live_by_filter = v == "filter";
         return std::string();
       }},
      {"--measure-fps", "SECONDS", "render --view for that long and print the frame times",
       [o](const std::string& v) {
         uint32_t seconds = 0;
         if (!ParseU32(v, &seconds) || seconds == 0 || seconds > 3600)
           return "--measure-fps needs a number of seconds from 1 to 3600, got '" + v + "'";
         o->measure_fps_seconds = seconds;
         return std::string();
       }},
      {"--measure-loading", "",
       "--measure-fps from the first picture on: while the whole load runs behind it, then SECONDS more",
       [o](const std::string&) { return (o->measure_loading = true), std::string(); }},
      {"--size", "WxH", "the window's size (320x240 to 8192x8192)",
       [o](const std::string& v) {
         return ParseSize(v, &o->width, &o->height)
                    ? std::string()
                    : "--size needs WIDTHxHEIGHT between 320x240 and 8192x8192, got '" + v + "'";
       }},
      {"--generate-man", "FILE", "", store(&o->generate_man, nullptr)},
  };
}

bool ParseViewerOptions(int argc, const char* const* argv, ViewerOptions* o, std::string* error) {
  std::vector<std::string> args(argv + 1, argv + argc), positional;
  switch (ParseCommandLine(ViewerOptionTable(o), args, &positional, error)) {
    case ParsedCommandLine::kHelp:
      o->help = true;
      return true;
    case ParsedCommandLine::kError: return false;
    case ParsedCommandLine::kOk: break;
  }
  if (positional.size() > 1) {
    *error = "more than one capture given ('" + positional[0] + "' and '" + positional[1] + "')";
    return false;
  }
  if (!positional.empty()) o->capture_path = positional[0];
  if (!o->follow_socket.empty() && (!o->capture_path.empty() || !o->dump_view.empty())) {
    *error = "--follow takes the place of a capture file (and has no --dump-view-data)";
    return false;
  }
  bool has_input = !o->capture_path.empty() || !o->follow_socket.empty();
  if ((!o->screenshot_path.empty() || !o->dump_view.empty() || o->measure_fps_seconds > 0) && !has_input) {
    *error = "--screenshot, --dump-view-data and --measure-fps need a capture file";
    return false;
  }
  if ((!o->screenshot_path.empty() || o->measure_fps_seconds > 0) && o->view.empty()) {
    *error = "--screenshot and --measure-fps need --view NAME";
    return false;
  }
  if (!o->view.empty() && o->screenshot_path.empty() && o->measure_fps_seconds == 0) {
    *error = "--view names the view --screenshot or --measure-fps renders; without them it would be ignored";
    return false;
  }
  if (o->measure_loading && (o->measure_fps_seconds == 0 || o->first_picture)) {
    *error = "--measure-loading goes with --measure-fps, without --first-picture";
    return false;
  }
  if (o->first_picture && o->screenshot_path.empty() && o->dump_view != "timeline") {
    // Only the timeline is drawn from the index: the other views need the events.
    *error = "--first-picture goes with --screenshot or --dump-view-data timeline";
    return false;
  }
  return true;
}

std::string FramePicksProblem(const ViewerOptions& options, const analysis::FrameTable& frames) {
  if (options.frame && !frames.Find(*options.frame))
    return "frame " + std::to_string(*options.frame) + " is not in the capture (" + analysis::DescribeFrames(frames) +
           ")";
  if (!options.phase.empty()) {
    if (options.range || options.range_b) return "--phase picks range A and B itself: drop --range and --range-b";
    std::string error;
    if (!analysis::FindPhaseByName(frames.phases, options.phase, &error)) return "--phase: " + error;
  }
  for (const auto& [name, range] : {std::pair{"--range", options.range}, std::pair{"--range-b", options.range_b}}) {
    if (range && frames.CountIn(*range) == 0)
      return std::string(name) + " " + std::to_string(range->from) + ":" + std::to_string(range->to) +
             " holds no frame of the capture (" + analysis::DescribeFrames(frames) + ")";
  }
  return "";
}

namespace {

const char* const kViewerSynopsis[] = {
    "memframe-viewer [CAPTURE] [OPTIONS]",
    "memframe-viewer --follow SOCKET [OPTIONS]",
    "memframe-viewer CAPTURE --screenshot FILE.png --view NAME [--frame N | --range A:B] [--size WxH]",
    "memframe-viewer CAPTURE --dump-view-data NAME [--frame N | --range A:B] [--range-b A:B]",
    "memframe-viewer CAPTURE --measure-fps SECONDS --view NAME [--size WxH]",
};

}  // namespace

std::string ViewerUsage() {
  std::ostringstream out;
  for (const char* line : kViewerSynopsis) out << (line == kViewerSynopsis[0] ? "usage: " : "       ") << line << '\n';
  out << "\nThe GUI over a capture: timeline, frame detail, hidden, diff, flame graph, fragmentation, leaks,\n"
         "lifetimes, mismatches. The filters and picks apply with any mode.\n\noptions:\n";
  ViewerOptions scratch;
  WriteHelpOptions(ViewerOptionTable(&scratch), out, 34);
  out << "  -h, --help" << std::string(22, ' ') << "show this help\n";
  return out.str();
}

void WriteViewerManPage(const std::string& version, std::ostream& out) {
  WriteManHeader("memframe-viewer", "the GUI of memframe, the per-frame memory profiler for games", version, out);
  out << ".SH SYNOPSIS\n.nf\n";
  for (const char* line : kViewerSynopsis) out << Troff(line) << '\n';
  out << ".fi\n.SH DESCRIPTION\nmemframe\\-viewer shows a capture written by memframe run (or a run being recorded, with "
         "\\-\\-follow): the frame timeline, each frame's allocations, the call sites that allocate every frame, "
         "diffs between frames or markers, a flame graph, the address map, leaks, lifetimes and mismatched frees. "
         "With \\-\\-screenshot or \\-\\-dump\\-view\\-data it renders one view and exits.\n";
  ViewerOptions scratch;
  WriteManOptions(ViewerOptionTable(&scratch), out);
  out << ".TP\n.B \\-h, \\-\\-help\nshow the help\n.SH SEE ALSO\nmemframe(1)\n";
}

}  // namespace memframe::viewer
