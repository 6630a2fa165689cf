// RunCheck (memframe/report/check.h): load the budget and the capture, check, print the
// table, write the JUnit file.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <sstream>

#include "memframe/analysis/phases.h"
#include "memframe/output_file.h"
#include "memframe/report/check.h"
#include "memframe/report/report.h"
#include "report_input.h"
#include "report_text_common.h"
#include "text_table.h"
#include "memframe/command_line.h"

namespace memframe::analysis {

namespace {

// A budget is a few lines of JSON; what is larger is not one (/dev/zero).
constexpr size_t kMaxBudgetBytes = 1u << 20;
// How long a budget that names a FIFO or a pipe may keep memframe waiting
// for its next bytes (bash's <(...) writes at once; a FIFO nobody writes,
// never).
constexpr int kBudgetWaitMs = 5000;

// The budget file's text, read without blocking for good on a FIFO and
// never past kMaxBudgetBytes; false with *error naming the budget.
bool ReadBudgetText(const std::string& path, std::string* text, std::string* error) {
  int fd = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
  struct stat st {};
  if (fd < 0 || fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
    *error = "cannot read budget " + path + ": " + (fd >= 0 ? "it is a directory" : strerror(errno));
    if (fd >= 0) close(fd);
    return false;
  }
  text->clear();
  error->clear();
  char buffer[1 << 16];
  for (;;) {
    // poll first: a FIFO whose writer has not opened it yet reads as ended.
    pollfd ready{fd, POLLIN, 0};
    int polled = poll(&ready, 1, kBudgetWaitMs);
    if (polled < 0 && errno == EINTR) continue;
    if (polled == 0) {
      *error = "cannot read budget " + path + ": nothing came from it in " + std::to_string(kBudgetWaitMs / 1000) +
               " s";
      break;
    }
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && (errno == EINTR || errno == EAGAIN)) continue;
    if (n < 0) {
      *error = "cannot read budget " + path + ": " + strerror(errno);
      break;
    }
    if (n == 0) {
      if (text->empty()) *error = "budget " + path + " is empty";
      break;
    }
    if (text->size() + static_cast<size_t>(n) > kMaxBudgetBytes) {
      *error = "budget " + path + " is larger than " + std::to_string(kMaxBudgetBytes >> 20) +
               " MiB; a budget is a small JSON file";
      break;
    }
    text->append(buffer, static_cast<size_t>(n));
  }
  close(fd);
  return error->empty();
}

// A mean is shown to a tenth, rounded up, so that a figure shown equal to
// its limit is never one that broke it.
std::string FigureText(const BudgetCheck& c, uint64_t value, uint64_t per_frames) {
  std::string text;
  if (per_frames <= 1) {
    text = c.unit == "ns" ? FormatDuration(value) : FormatCount(value);
  } else {
    const auto tenths = static_cast<uint64_t>((static_cast<unsigned __int128>(value) * 10 + per_frames - 1) / per_frames);
    text = FormatCount(tenths / 10) + "." + std::to_string(tenths % 10);
  }
  return c.unit == "bytes" ? text + " B" : text;
}

std::string ActualText(const BudgetCheck& c) { return FigureText(c, c.actual, c.per_frames); }
std::string LimitText(const BudgetCheck& c) { return FigureText(c, c.limit, 1); }

// The frame where the figure was reached, or the phase a mean is over.
std::string WhereText(const BudgetCheck& c) {
  if (!c.frames) return "-";
  if (c.frames->from == c.frames->to) return std::to_string(c.frames->from);
  return std::to_string(c.frames->from) + ".." + std::to_string(c.frames->to);
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
  if (!c.note.empty()) return c.note;
  std::string v = ActualText(c) + (c.passed ? " <= " : " > ") + LimitText(c);
  if (c.frames) v += (c.frames->from == c.frames->to ? " (frame " : " (mean of frames ") + WhereText(c) + ")";
  return v;
}

}  // namespace

void WriteBudgetTable(const BudgetReport& report, const std::string& capture, std::ostream& out) {
  std::string steady;
  for (const Phase& p : report.steady)
    steady += (steady.empty() ? "" : ", ") + PhaseName(p) + " (" + RangeText(p.frames) + ")";
  out << "memframe check: " << capture << "\n";
  if (!report.only_phase.empty())
    out << "phase " << report.only_phase
        << " alone: the budgets of the whole run (loads, unloads, leaks, mismatches) not checked\n";
  out << "steady phases: " << (steady.empty() ? "none" : steady) << "\n";
  if (!steady.empty())
    out << "\"a frame\": the mean of all the phase's frames, spikes included; \"worst frame\": its worst\n";
  out << "\n";
  TextTable table({{"result", true}, {"budget", true}, {"limit"}, {"actual"}, {"frame"}});
  for (const BudgetCheck& c : report.checks)
    table.AddRow(
        {c.passed ? "pass" : "FAIL", c.name, LimitText(c), c.note.empty() ? ActualText(c) : c.note, WhereText(c)});
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
  std::string text, error;
  if (!ReadBudgetText(request.budget_path, &text, &error)) {
    ErrorLine(err) << error << "\n";
    return kExitMemframeError;
  }
  Budget budget;
  if (!ParseBudget(text, &budget, &error)) {
    ErrorLine(err) << "budget " << request.budget_path << ": " << error << "\n";
    return kExitMemframeError;
  }
  std::unique_ptr<OutputFile> junit;
  if (!request.junit_path.empty()) {
    OutputPolicy policy;
    policy.inputs = {request.capture_path, request.budget_path};
    policy.existing = OutputPolicy::Existing::kReplaceUnlessCapture;
    junit = OutputFile::Create(request.junit_path, policy, &error);
    if (!junit) {
      ErrorLine(err) << error << "\n";
      return kExitMemframeError;
    }
  }
  Capture capture;
  if (int code = LoadCaptureForReport(request.capture_path, &capture, err); code >= 0) return code;
  HeapAnalysis heap = AnalyzeHeap(capture.main);
  Symbolizer symbolizer(capture.main.modules, ClassifierFor(capture.main));
  const Phase* only = nullptr;
  if (!request.phase.empty() && !(only = FindPhaseByName(heap.frames.phases, request.phase, &error))) {
    ErrorLine(err) << "--phase: " << error << "\n";
    return kExitMemframeError;
  }
  const BudgetReport report = CheckBudget(capture, heap, symbolizer, budget, only);
  // Checking nothing is no verdict: a green CI run must have judged something.
  if (only && report.checks.empty()) {
    ErrorLine(err) << "budget " << request.budget_path << " has no budget for " << PhaseName(*only) << " (a "
        << PhaseKindName(only->kind) << " phase)\n";
    return kExitMemframeError;
  }
  WriteBudgetTable(report, request.capture_path, out);
  if (junit) {
    const std::string xml = BudgetJUnit(report, request.capture_path);
    if (!junit->Write(xml.data(), xml.size(), &error) || !junit->Commit(&error)) {
      ErrorLine(err) << error << "\n";
      return kExitMemframeError;
    }
  }
  // Figures of a damaged capture stop at the damage: not a verdict CI can trust.
  if (FinishWithDamage(capture, err) != 0) return kExitMemframeError;
  return report.broken() == 0 ? 0 : 1;
}

}  // namespace memframe::analysis
