// The arguments each report accepts (report_registry.h, REPORTS.md), read by
// memframe/command_line.h into ReportOptions: `--opt value` and
// `--opt=value`. Values that depend on the capture (a frame past the end, a
// marker name) are checked by the report itself.
#include <algorithm>

#include "memframe/command_line.h"
#include "memframe/report/report_registry.h"
#include "report_input.h"

namespace memframe::analysis {

namespace {

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
  // The CLI usually takes --json; accept it here too.
  std::vector<CommandOption> table = {{"--json", "", "", [](const std::string&) { return std::string(); }}};
  for (const ReportOptionDef* option : OptionsOf(*report)) {
    table.push_back({option->name, option->value, option->help, [option, options](const std::string& value) {
                       std::string problem;
                       return option->apply(value, options, &problem) ? std::string() : problem;
                     }});
  }
  auto refuse = [&](const std::string& option) {
    const char* refusal = option == "--thread" ? ThreadFilterRefusal(report->name) : nullptr;
    return refusal ? name + " cannot honour --thread: " + refusal
                   : name + " does not take '" + option + "' (memframe report CAPTURE " +
                         (report->name == "summary" ? "" : report->name + " ") + "--help lists its options)";
  };
  switch (ParseCommandLine(table, args, &options->operands, error, OptionsEnd::kAnywhere, refuse)) {
    case ParsedCommandLine::kHelp:
      *error = "--help is `memframe report CAPTURE " + report->name + " --help`";
      return false;
    case ParsedCommandLine::kError: return false;
    case ParsedCommandLine::kOk: break;
  }
  if (options->operands.size() > OperandCount(*report)) {
    *error = name + " does not take '" + options->operands[OperandCount(*report)] + "'";
    return false;
  }
  if (options->operands.size() < OperandCount(*report) && !(report->operands_optional && options->operands.empty())) {
    *error = name + " needs " + report->operands + " (" + report->operands_help + ")" +
             (report->operands_optional ? ", or neither" : "");
    return false;
  }
  if (!options->phase.empty() && (options->from || options->to || options->frame || !options->operands.empty())) {
    *error = "--phase selects a phase's frames; it cannot be combined with --from, --to, --frame or frames to compare";
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
