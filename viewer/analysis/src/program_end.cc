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
      return "ran on after memframe detached";
    case ProgramEnd::Kind::kUnknown:
      break;
  }
  return "was not seen to end";
}

const char* LiveAtEndWord(const ProgramEnd& end) {
  switch (end.kind) {
    case ProgramEnd::Kind::kExited: return "leaked";
    case ProgramEnd::Kind::kDetached: return "live at detach";
    case ProgramEnd::Kind::kKilled: return "live at exit";
    case ProgramEnd::Kind::kUnknown: break;
  }
  return "live at end";
}

std::string LiveAtEndVerdict(const ProgramEnd& end) {
  switch (end.kind) {
    case ProgramEnd::Kind::kExited:
      return "at the end; the program " + DescribeProgramEnd(end) + ", so they are leaks";
    case ProgramEnd::Kind::kDetached:
      return "when memframe detached; the process ran on, so they are not leaks";
    case ProgramEnd::Kind::kKilled:
    case ProgramEnd::Kind::kUnknown:
      break;
  }
  return "at the end; the program " + DescribeProgramEnd(end) +
         ", so they are not called leaks (only an exit shows that nothing would have freed them)";
}

}  // namespace memframe::analysis
