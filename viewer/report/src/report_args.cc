// The arguments each report accepts (report_registry.h, REPORTS.md), parsed
// into ReportOptions: `--opt value` and `--opt=value`. Values that depend on
// the capture (a frame past the end, a marker name) are checked by the
// report itself.
#include <algorithm>

#include "memframe/report/report_registry.h"
#include "report_input.h"

namespace memframe::analysis {

namespace {

bool Takes(const ReportDef& report, const ReportOptionDef* option) {
  const std::vector<const ReportOptionDef*> options = OptionsOf(report);
  return std::find(options.begin(), options.end(), option) != options.end();
}

size_t OperandCount(const ReportDef& report) {
  return report.operands.empty() ? 0 : std::count(report.operands.begin(), report.operands.end(), ' ') + 1;
}

}  // namespace

bool ParseReportArgs(const std::string& report_name, const std::vector<std::string>& args, ReportOptions* options,
                     std::string* error) {
  const ReportDef* report = FindReport(report_name);
  if (!report) {
    *error = "unknown report '" + report_name + "' (reports: " + ReportNames() + ")";
    return false;
  }
  const std::string name = report->name == "summary" ? "the summary" : "report '" + report->name + "'";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--json") continue;  // the CLI usually takes it; accept it here too
    const bool is_option = arg.size() > 1 && arg[0] == '-' && !(arg[1] >= '0' && arg[1] <= '9');
    if (is_option) {
      const size_t equals = arg.find('=');
      const std::string option_name = arg.substr(0, equals);
      const ReportOptionDef* option = FindReportOption(option_name);
      if (!option || !Takes(*report, option)) {
        const char* refusal = option_name == "--thread" ? ThreadFilterRefusal(report->name) : nullptr;
        *error = refusal ? name + " cannot honour --thread: " + refusal
                         : name + " does not take '" + option_name + "' (memframe report CAPTURE " +
                               (report->name == "summary" ? "" : report->name + " ") + "--help lists its options)";
        return false;
      }
      std::string value;
      if (option->value.empty()) {
        if (equals != std::string::npos) {
          *error = option_name + " takes no value";
          return false;
        }
      } else if (equals != std::string::npos) {
        value = arg.substr(equals + 1);
      } else if (i + 1 == args.size()) {
        *error = option_name + " needs a value";
        return false;
      } else {
        value = args[++i];
      }
      if (!option->apply(value, options, error)) return false;
      continue;
    }
    if (options->operands.size() >= OperandCount(*report)) {
      *error = name + " does not take '" + arg + "'";
      return false;
    }
    options->operands.push_back(arg);
  }
  if (options->operands.size() < OperandCount(*report) && !(report->operands_optional && options->operands.empty())) {
    *error = name + " needs " + report->operands + " (" + report->operands_help + ")" +
             (report->operands_optional ? ", or neither" : "");
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
