#include "memframe/analysis/program_end.h"

#include <cstring>

namespace memframe::analysis {

ProgramEnd HowProgramEnded(const Capture& capture) {
  ProgramEnd end;
  if (capture.recorder.detached || (capture.has_main && capture.main.end_reason == "detach")) {
    end.kind = ProgramEnd::Kind::kDetached;
  } else if (capture.recorder.finished) {
    end.exit_status = capture.recorder.exit_status;
    end.signal = capture.recorder.termination_signal;
    end.kind = end.signal ? ProgramEnd::Kind::kKilled : ProgramEnd::Kind::kExited;
  }
  return end;
}

std::string DescribeProgramEnd(const ProgramEnd& end) {
  switch (end.kind) {
    case ProgramEnd::Kind::kExited:
      return "exited with status " + std::to_string(end.exit_status);
    case ProgramEnd::Kind::kKilled: {
      const char* name = strsignal(end.signal);
      return "was killed by signal " + std::to_string(end.signal) + (name ? std::string(" (") + name + ")" : "");
    }
    case ProgramEnd::Kind::kDetached:
      return "was detached (it ran on)";
    case ProgramEnd::Kind::kUnknown:
      break;
  }
  return "was not seen to end";
}

const char* LiveAtEndWord(const ProgramEnd& end) { return end.LiveBlocksAreLeaks() ? "leaked" : "live at exit"; }

}  // namespace memframe::analysis
