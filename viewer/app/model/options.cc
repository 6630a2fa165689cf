#include "options.h"

#include <charconv>
#include <cstring>

#include "memframe/analysis/size_histogram.h"

namespace memframe::viewer {

namespace {

bool ParseU32(std::string_view text, uint32_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool ParseU64(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
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

}  // namespace

bool ParseViewerOptions(int argc, const char* const* argv, ViewerOptions* o, std::string* error) {
  for (int i = 1; i < argc; ++i) {
    std::string_view arg = argv[i];
    // --opt=value: the value is what follows '=', and only an option that takes one may have it.
    std::optional<std::string_view> joined;
    if (size_t equals = arg.find('='); arg.starts_with("--") && equals != std::string_view::npos) {
      joined = arg.substr(equals + 1);
      arg = arg.substr(0, equals);
    }
    auto value = [&](std::string_view* out) {
      if (joined) {
        *out = *joined;
        joined.reset();
        return true;
      }
      if (i + 1 >= argc) {
        *error = std::string(arg) + " needs a value";
        return false;
      }
      *out = argv[++i];
      return true;
    };
    std::string_view v;
    if (arg == "-h" || arg == "--help") {
      o->help = true;
    } else if (arg == "--version") {
      o->version = true;
    } else if (arg == "--screenshot") {
      if (!value(&v)) return false;
      o->screenshot_path = v;
    } else if (arg == "--view") {
      if (!value(&v)) return false;
      o->view = v;
    } else if (arg == "--dump-view-data") {
      if (!value(&v)) return false;
      o->dump_view = v;
    } else if (arg == "--module-class") {
      analysis::ModuleClassRule rule;
      if (!value(&v) || !analysis::ParseModuleClassRule(std::string(v), &rule, error)) return false;
      o->module_class_rules.push_back(std::move(rule));
    } else if (arg == "--only" || arg == "--hide") {
      if (!value(&v) || !analysis::ApplyClassList(std::string(v), arg == "--only", &o->classes, error)) return false;
    } else if (arg == "--all-frames") {
      o->all_frames = true;
    } else if (arg == "--thread") {
      if (!value(&v)) return false;
      if (v.empty()) {
        *error = "--thread needs a thread name or TID";
        return false;
      }
      o->threads.emplace_back(v);
    } else if (arg == "--frame") {
      uint64_t f = 0;
      if (!value(&v)) return false;
      if (!ParseU64(v, &f)) {
        *error = "--frame needs a frame number, got '" + std::string(v) + "'";
        return false;
      }
      o->frame = f;
    } else if (arg == "--range" || arg == "--range-b") {
      analysis::FrameRange r;
      if (!value(&v)) return false;
      if (!ParseRange(v, &r)) {
        *error = std::string(arg) + " needs FROM:TO with FROM <= TO, got '" + std::string(v) + "'";
        return false;
      }
      (arg == "--range" ? o->range : o->range_b) = r;
    } else if (arg == "--diff-a" || arg == "--diff-b") {
      if (!value(&v)) return false;
      if (v.empty()) {
        *error = std::string(arg) + " needs a marker name";
        return false;
      }
      (arg == "--diff-a" ? o->diff_a : o->diff_b) = v;
    } else if (arg == "--search") {
      if (!value(&v)) return false;
      o->search = v;
    } else if (arg == "--size-bin") {
      uint32_t bin = 0;
      if (!value(&v)) return false;
      if (!ParseU32(v, &bin) || bin >= analysis::kSizeBins) {
        *error = "--size-bin needs a size bin from 0 to " + std::to_string(analysis::kSizeBins - 1) + ", got '" +
                 std::string(v) + "'";
        return false;
      }
      o->size_bin = static_cast<int>(bin);
    } else if (arg == "--group-functions") {
      o->group_by_function = true;
    } else if (arg == "--flame-metric") {
      if (!value(&v)) return false;
      o->flame_metric = ParseFlameMetric(v);
      if (!o->flame_metric) {
        *error = "--flame-metric needs allocations, bytes or live, got '" + std::string(v) + "'";
        return false;
      }
    } else if (arg == "--flame-function") {
      if (!value(&v)) return false;
      o->flame_function = v;
    } else if (arg == "--live-by") {
      if (!value(&v)) return false;
      if (v != "class" && v != "filter") {
        *error = "--live-by needs class or filter, got '" + std::string(v) + "'";
        return false;
      }
      o->live_by_filter = v == "filter";
    } else if (arg == "--follow") {
      if (!value(&v)) return false;
      o->follow_socket = v;
    } else if (arg == "--measure-fps") {
      uint32_t seconds = 0;
      if (!value(&v)) return false;
      if (!ParseU32(v, &seconds) || seconds == 0 || seconds > 3600) {
        *error = "--measure-fps needs a number of seconds from 1 to 3600, got '" + std::string(v) + "'";
        return false;
      }
      o->measure_fps_seconds = seconds;
    } else if (arg == "--size") {
      if (!value(&v)) return false;
      if (!ParseSize(v, &o->width, &o->height)) {
        *error = "--size needs WIDTHxHEIGHT between 320x240 and 8192x8192, got '" + std::string(v) + "'";
        return false;
      }
    } else if (arg.starts_with("-")) {
      *error = "unknown option " + std::string(arg);
      return false;
    } else if (o->capture_path.empty()) {
      o->capture_path = arg;
    } else {
      *error = "more than one capture given ('" + o->capture_path + "' and '" + std::string(arg) + "')";
      return false;
    }
    if (joined) {
      *error = std::string(arg) + " takes no value";
      return false;
    }
  }
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
  return true;
}

std::string ViewerUsage() {
  return "usage: memframe-viewer [CAPTURE]\n"
         "       memframe-viewer --version\n"
         "       memframe-viewer CAPTURE --screenshot FILE.png --view NAME [--frame N | --range A:B]\n"
         "                       [--range-b A:B] [--size WxH]\n"
         "       memframe-viewer CAPTURE --dump-view-data NAME [--frame N | --range A:B] [--range-b A:B]\n"
         "       memframe-viewer --follow SOCKET [--screenshot FILE.png --view NAME]\n"
         "       memframe-viewer CAPTURE --measure-fps SECONDS --view NAME [--size WxH]\n"
         "CAPTURE can be --follow SOCKET wherever it appears: the live socket `memframe run` prints.\n"
         "--diff-a MARKER / --diff-b MARKER (with any mode) set the snapshot diff's A / B to a named marker.\n"
         "--module-class PATTERN=CLASS (repeatable), --only CLASSES, --hide CLASSES (with any mode): who allocated,\n"
         "  as in `memframe report` (classes: game, engine, driver, system).\n"
         "--search TEXT, --size-bin N, --group-functions (with any mode): the tables' row filters.\n"
         "--flame-metric allocations|bytes|live, --flame-function NAME: the flame graph's metric and function.\n"
         "--live-by class|filter: the live-memory graph stacked by module class, or the sites --search and\n"
         "  --size-bin keep against the others.\n"
         "--all-frames (with any mode): Hidden and Lifetimes judge every frame, not steady play alone.\n"
         "--thread NAME|TID (repeatable, with any mode): show only those threads' allocations.\n";
}

}  // namespace memframe::viewer
