#include "memframe/analysis/load_progress.h"

#include <unistd.h>

#include <algorithm>
#include <cstdio>

namespace memframe::analysis {

namespace {

std::string Amount(uint64_t value, LoadProgress::Phase phase) {
  char text[32];
  const double v = static_cast<double>(value);
  if (phase == LoadProgress::Phase::kReading) {
    if (value >= (1ull << 30)) snprintf(text, sizeof(text), "%.1f GiB", v / (1ull << 30));
    else snprintf(text, sizeof(text), "%.0f MiB", v / (1ull << 20));
  } else {
    snprintf(text, sizeof(text), "%.1f M events", v / 1e6);
  }
  return text;
}

}  // namespace

const char* PhaseName(LoadProgress::Phase phase) {
  switch (phase) {
    case LoadProgress::Phase::kReading: return "reading capture";
    case LoadProgress::Phase::kOrdering: return "ordering events";
    case LoadProgress::Phase::kAnalysing: return "analysing heap";
    case LoadProgress::Phase::kDone: return "done";
  }
  return "";
}

void ProgressBar::Update(const LoadProgress& p) {
  if (p.phase == LoadProgress::Phase::kDone) return Clear();
  int percent = p.total ? static_cast<int>(std::min<uint64_t>(p.done, p.total) * 100 / p.total) : 0;
  int phase = static_cast<int>(p.phase);
  if (phase == last_phase_ && percent == last_percent_) return;
  last_phase_ = phase;
  last_percent_ = percent;
  std::string line = std::string("memframe: ") + PhaseName(p.phase);
  if (p.total) {
    char pct[8];
    snprintf(pct, sizeof(pct), " %3d%%", percent);
    line += pct;
    line += " (" + Amount(p.done, p.phase) + " of " + Amount(p.total, p.phase) + ")";
  }
  // Pad over a longer previous line instead of relying on terminal escapes.
  size_t width = line.size();
  if (drawn_ > width) line.append(drawn_ - width, ' ');
  out_ << '\r' << line << std::flush;
  drawn_ = width;
}

void ProgressBar::Clear() {
  if (drawn_ == 0) return;
  out_ << '\r' << std::string(drawn_, ' ') << '\r' << std::flush;
  drawn_ = 0;
  last_phase_ = last_percent_ = -1;
}

bool StderrIsTerminal() { return isatty(STDERR_FILENO) == 1; }

}  // namespace memframe::analysis
