// Progress of the long steps of opening a capture (reading, ordering,
// analysing), and a one-line bar that shows it on a terminal.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>
#include <string>

namespace memframe::analysis {

struct LoadProgress {
  // kDone is sent last by LoadCapture and AnalyzeHeap (also when they
  // fail), so that a bar is gone before any message is printed.
  enum class Phase { kReading, kOrdering, kAnalysing, kDone };
  Phase phase = Phase::kReading;
  uint64_t done = 0;   // kReading: compressed bytes; otherwise events
  uint64_t total = 0;  // 0 when unknown
};

// Called from the loading thread, often: keep it cheap.
using LoadProgressFn = std::function<void(const LoadProgress&)>;

const char* PhaseName(LoadProgress::Phase phase);

// "memframe: reading capture  37% (412 MB of 1.1 GB)" rewritten in place
// with '\r'. It redraws only when the phase or the whole percent changes, so
// a hundred million updates cost a few hundred writes.
class ProgressBar {
 public:
  explicit ProgressBar(std::ostream& out) : out_(out) {}
  ~ProgressBar() { Clear(); }
  void Update(const LoadProgress& progress);
  // Erases the bar; call before anything else is written to the stream.
  void Clear();
  LoadProgressFn Callback() {
    return [this](const LoadProgress& p) { Update(p); };
  }

 private:
  std::ostream& out_;
  int last_phase_ = -1;
  int last_percent_ = -1;
  size_t drawn_ = 0;  // characters on the line now
};

// True when stderr is a terminal: the bar is shown there by default and
// never mixed into a file or a pipe.
bool StderrIsTerminal();

}  // namespace memframe::analysis
