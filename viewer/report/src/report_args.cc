// The arguments each report accepts (REPORTS.md), parsed into ReportOptions.
// Values that depend on the capture (a frame past the end, a marker name)
// are checked by the report itself.
#include <cerrno>
#include <cstdlib>
#include <map>
#include <set>

#include "report_input.h"

namespace memframe::analysis {

namespace {

struct ReportSyntax {
  std::set<std::string> options;  // each takes one value
  size_t operands = 0;            // positional arguments: all of them, or (operands_optional) none
  const char* operand_names = "";
  bool operands_optional = false;
  std::set<std::string> flags = {};  // options without a value
};

const std::map<std::string, ReportSyntax>& Syntax() {
  // Every report that lists call sites takes the class options (module_class.h).
  const std::set<std::string> classes = {"--module-class", "--only", "--hide"};
  auto with_classes = [&](std::set<std::string> options) {
    options.insert(classes.begin(), classes.end());
    return options;
  };
  // The reports whose rules assume steady play judge it alone unless asked (phases.h JudgeFrames).
  const std::set<std::string> all_frames = {"--all-frames"};
  static const std::map<std::string, ReportSyntax> syntax = {
      {"", {with_classes({}), 0, "", false, all_frames}},
      {"frames", {with_classes({"--from", "--to"})}},
      {"hidden", {with_classes({"--from", "--to", "--min-fraction"}), 0, "", false, all_frames}},
      {"leaks", {with_classes({})}},
      {"sites", {with_classes({"--from", "--to"})}},
      {"histogram", {with_classes({"--from", "--to", "--frame"})}},
      {"diff", {with_classes({}), 2, "A B (each a frame number, a marker name, 'start' or 'end'), or neither", true}},
      {"phases", {}},
      {"threads", {}},
      {"fragmentation", {{"--frame", "--png", "--color"}}},
      {"lifetimes", {with_classes({}), 0, "", false, all_frames}},
      {"mismatches", {with_classes({})}},
  };
  return syntax;
}

bool ParseFrame(const std::string& text, uint64_t* out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = strtoull(text.c_str(), &end, 10);
  if (errno || *end) return false;
  *out = value;
  return true;
}

bool ParseFraction(const std::string& text, double* out) {
  if (text.empty()) return false;
  errno = 0;
  char* end = nullptr;
  double value = strtod(text.c_str(), &end);
  if (errno || *end || !(value > 0.0 && value <= 1.0)) return false;
  *out = value;
  return true;
}

bool ApplyOption(const std::string& option, const std::string& value, ReportOptions* options, std::string* error) {
  if (option == "--module-class") {
    ModuleClassRule rule;
    if (!ParseModuleClassRule(value, &rule, error)) return false;
    options->class_rules.push_back(std::move(rule));
    return true;
  }
  if (option == "--only" || option == "--hide") return ApplyClassList(value, option == "--only", &options->classes, error);
  if (option == "--min-fraction") {
    if (ParseFraction(value, &options->min_fraction)) return true;
    *error = "--min-fraction wants a number in (0, 1], not '" + value + "'";
    return false;
  }
  if (option == "--png") {
    if (value.empty()) {
      *error = "--png wants a file name";
      return false;
    }
    options->png = value;
    return true;
  }
  if (option == "--color") {
    if (value == "age" || value == "site") {
      options->coloring = value == "age" ? MapColoring::kAge : MapColoring::kSite;
      return true;
    }
    *error = "--color wants 'age' or 'site', not '" + value + "'";
    return false;
  }
  uint64_t frame = 0;
  if (!ParseFrame(value, &frame)) {
    *error = option + " wants a frame number, not '" + value + "'";
    return false;
  }
  (option == "--from" ? options->from : option == "--to" ? options->to : options->frame) = frame;
  return true;
}

}  // namespace

bool ParseReportArgs(const std::string& report, const std::vector<std::string>& args, ReportOptions* options,
                     std::string* error) {
  auto syntax = Syntax().find(report);
  if (syntax == Syntax().end()) {
    *error = "unknown report '" + report + "'";
    return false;
  }
  const ReportSyntax& accepts = syntax->second;
  const std::string name = report.empty() ? "the summary" : "report '" + report + "'";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--json") continue;  // the CLI usually takes it; accept it here too
    if (arg == "--thread") {
      if (const char* refusal = ThreadFilterRefusal(report)) {
        *error = name + " cannot honour --thread: " + refusal;
        return false;
      }
      if (i + 1 == args.size() || args[i + 1].empty()) {
        *error = "--thread needs a thread name or TID";
        return false;
      }
      options->threads.push_back(args[++i]);
      continue;
    }
    if (accepts.flags.count(arg)) {
      if (arg == "--all-frames") options->all_frames = true;
      continue;
    }
    if (accepts.options.count(arg)) {
      if (i + 1 == args.size()) {
        *error = arg + " needs a value";
        return false;
      }
      if (!ApplyOption(arg, args[++i], options, error)) return false;
      continue;
    }
    if (arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9')) {
      *error = name + " does not take '" + arg + "'";
      return false;
    }
    if (options->operands.size() >= accepts.operands) {
      *error = name + " does not take '" + arg + "'";
      return false;
    }
    options->operands.push_back(arg);
  }
  if (options->operands.size() < accepts.operands && !(accepts.operands_optional && options->operands.empty())) {
    *error = name + " needs " + accepts.operand_names;
    return false;
  }
  if (options->frame && (options->from || options->to)) {
    *error = "--frame selects one frame; it cannot be combined with --from or --to";
    return false;
  }
  if (options->from && options->to && *options->from > *options->to) {
    *error = "--from " + std::to_string(*options->from) + " is after --to " + std::to_string(*options->to);
    return false;
  }
  return true;
}

}  // namespace memframe::analysis
