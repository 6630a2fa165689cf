// How the recorded program ended. It decides what the blocks live at the end
// are: after an exit they are leaks (nothing freed them); a killed game, a
// detach or a capture cut short leaves blocks that were simply still in use,
// so every report and view calls them leaks only after an exit, and a
// detached process's blocks "live when memframe detached" (it ran on).
#pragma once

#include <string>

#include "memframe/analysis/capture_model.h"

namespace memframe::analysis {

struct ProgramEnd {
  enum class Kind {
    kExited,    // exit() or a return from main, with exit_status
    kKilled,    // by `signal`
    kDetached,  // memframe stopped recording; the program went on
    kUnknown,   // no closing record: the recorder was killed, or the run is still going
  };
  Kind kind = Kind::kUnknown;
  int exit_status = 0;
  int signal = 0;

  bool LiveBlocksAreLeaks() const { return kind == Kind::kExited; }
};

ProgramEnd HowProgramEnded(const Capture& capture);

// What follows "the program": "exited with status 0", "was killed by signal
// 15 (Terminated)", "ran on after memframe detached", "was not seen to end".
std::string DescribeProgramEnd(const ProgramEnd& end);

// What the blocks live at the end are called, as a figure's label:
// "leaked", "live at detach", "live at exit" (killed) or "live at end".
const char* LiveAtEndWord(const ProgramEnd& end);

// What follows "N blocks (X) were live": when, how the program ended and
// whether that makes them leaks, e.g. "when memframe detached; the process
// ran on, so they are not leaks".
std::string LiveAtEndVerdict(const ProgramEnd& end);

}  // namespace memframe::analysis
