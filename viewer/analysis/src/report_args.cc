#include <cerrno>
#include <cstdlib>

#include "report_input.h"

namespace memframe::analysis {

namespace {

bool ParseFrame(const std::string& text, uint32_t* out) {
  if (text.empty() || text[0] < '0' || text[0] > '9') return false;
  errno = 0;
  char* end = nullptr;
  unsigned long long value = strtoull(text.c_str(), &end, 10);
  if (errno || *end || value > UINT32_MAX) return false;
  *out = static_cast<uint32_t>(value);
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

}  // namespace

bool ParseReportArgs(const std::string& report, const std::vector<std::string>& args, ReportOptions* options,
                     std::string* error) {
  const bool takes_range = report == "frames" || report == "hidden" || report == "sites";
  const bool takes_fraction = report == "hidden";
  const std::string name = report.empty() ? "the summary" : "report '" + report + "'";
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--json") continue;  // the CLI usually takes it; accept it here too
    const bool is_range = arg == "--from" || arg == "--to";
    if ((is_range && takes_range) || (arg == "--min-fraction" && takes_fraction)) {
      if (i + 1 == args.size()) {
        *error = arg + " needs a value";
        return false;
      }
      const std::string& value = args[++i];
      uint32_t frame = 0;
      if (arg == "--min-fraction") {
        if (!ParseFraction(value, &options->min_fraction)) {
          *error = "--min-fraction wants a number in (0, 1], not '" + value + "'";
          return false;
        }
      } else if (!ParseFrame(value, &frame)) {
        *error = arg + " wants a frame number, not '" + value + "'";
        return false;
      } else {
        (arg == "--from" ? options->from : options->to) = frame;
      }
      continue;
    }
    *error = name + " does not take '" + arg + "'";
    return false;
  }
  if (options->from && options->to && *options->from > *options->to) {
    *error = "--from " + std::to_string(*options->from) + " is after --to " + std::to_string(*options->to);
    return false;
  }
  return true;
}

}  // namespace memframe::analysis
