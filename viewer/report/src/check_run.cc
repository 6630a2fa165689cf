// RunCheck (memframe/report/check.h): load the budget and the capture, check, print the
// table, write the JUnit file.
#include <fstream>
#include <sstream>

#include "memframe/report/check.h"
#include "memframe/report/report.h"
#include "memframe/output_file.h"
#include "report_input.h"
#include "report_text_common.h"
#include "text_table.h"

namespace memframe::analysis {

namespace {

std::string Figure(uint64_t value, const std::string& unit) {
  if (unit == "bytes") return FormatCount(value) + " B";
  if (unit == "ns") return FormatDuration(value);
  return FormatCount(value);
}

std::string XmlEscape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string Verdict(const BudgetCheck& c) {
  std::string v = Figure(c.actual, c.unit) + (c.passed ? " <= " : " > ") + Figure(c.limit, c.unit);
  if (c.frame) v += " (frame " + std::to_string(*c.frame) + ")";
  return c.note.empty() ? v : c.note;
}

}  // namespace

void WriteBudgetTable(const BudgetReport& report, const std::string& capture, std::ostream& out) {
  std::string steady;
  for (const FrameRange& r : report.steady) steady += (steady.empty() ? "" : ", ") + RangeText(r);
  out << "memframe check: " << capture << "\n"
      << "steady frames: " << (steady.empty() ? "none" : steady) << " (" << Plural(report.steady_frames, "frame")
      << ")\n\n";
  TextTable table({{"result", true}, {"budget", true}, {"limit"}, {"actual"}, {"frame"}});
  for (const BudgetCheck& c : report.checks) {
    table.AddRow({c.passed ? "pass" : "FAIL", c.name, Figure(c.limit, c.unit), c.note.empty() ? Figure(c.actual, c.unit) : c.note,
                  c.frame ? std::to_string(*c.frame) : "-"});
  }
  table.Write(out, "  ");
  out << "\n"
      << (report.broken() == 0 ? "every budget met"
                               : std::to_string(report.broken()) + " of " + std::to_string(report.checks.size()) +
                                     " budgets broken")
      << "\n";
}

std::string BudgetJUnit(const BudgetReport& report, const std::string& capture) {
  std::ostringstream x;
  const std::string counts = " tests=\"" + std::to_string(report.checks.size()) + "\" failures=\"" +
                             std::to_string(report.broken()) + "\" errors=\"0\"";
  x << "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
    << "<testsuites name=\"memframe check\"" << counts << ">\n"
    << "  <testsuite name=\"memframe budgets: " << XmlEscape(capture) << "\"" << counts << ">\n";
  for (const BudgetCheck& c : report.checks) {
    x << "    <testcase classname=\"memframe.budget\" name=\"" << XmlEscape(c.name) << "\"";
    if (c.passed) {
      x << "/>\n";
    } else {
      x << ">\n      <failure message=\"" << XmlEscape(Verdict(c)) << "\">" << XmlEscape(c.name + ": " + Verdict(c))
        << "</failure>\n    </testcase>\n";
    }
  }
  x << "  </testsuite>\n</testsuites>\n";
  return x.str();
}

int RunCheck(const CheckRequest& request, std::ostream& out, std::ostream& err) {
  std::ifstream in(request.budget_path);
  if (!in) {
    err << "memframe: error: cannot read budget " << request.budget_path << "\n";
    return 2;
  }
  std::stringstream text;
  text << in.rdbuf();
  Budget budget;
  std::string error;
  if (!ParseBudget(text.str(), &budget, &error)) {
    err << "memframe: error: budget " << request.budget_path << ": " << error << "\n";
    return 2;
  }
  std::unique_ptr<OutputFile> junit;
  if (!request.junit_path.empty()) {
    OutputPolicy policy;
    policy.inputs = {request.capture_path, request.budget_path};
    policy.existing = OutputPolicy::Existing::kReplaceUnlessCapture;
    junit = OutputFile::Create(request.junit_path, policy, &error);
    if (!junit) {
      err << "memframe: error: " << error << "\n";
      return 2;
    }
  }
  Capture capture;
  if (int code = LoadCaptureForReport(request.capture_path, &capture, err); code >= 0) return code;
  HeapAnalysis heap = AnalyzeHeap(capture.main);
  Symbolizer symbolizer(capture.main.modules, ClassifierFor(capture.main));
  const BudgetReport report = CheckBudget(capture, heap, symbolizer, budget);
  WriteBudgetTable(report, request.capture_path, out);
  if (junit) {
    const std::string xml = BudgetJUnit(report, request.capture_path);
    if (!junit->Write(xml.data(), xml.size(), &error) || !junit->Commit(&error)) {
      err << "memframe: error: " << error << "\n";
      return 2;
    }
  }
  // Figures of a damaged capture stop at the damage: not a verdict CI can trust.
  if (FinishWithDamage(capture, err) != 0) return 2;
  return report.broken() == 0 ? 0 : 1;
}

}  // namespace memframe::analysis
