#include "memframe/analysis/phase_scopes.h"

#include "memframe/analysis/phases.h"

namespace memframe::analysis {

std::vector<const Phase*> JudgedPhases(const FrameTable& table) {
  std::vector<const Phase*> judged;
  for (const Phase& p : FindPhases(table))
    if (p.kind == PhaseKind::kSteady && table.CountIn(p.frames) >= kMinScopeFrames) judged.push_back(&p);
  return judged;
}

const Phase* LongestJudgedPhase(const FrameTable& table) {
  const Phase* longest = nullptr;
  uint64_t most = 0;
  for (const Phase* p : JudgedPhases(table)) {
    const uint64_t frames = table.CountIn(p->frames);
    if (frames > most) {
      longest = p;
      most = frames;
    }
  }
  return longest;
}

const Phase* PhaseOfRange(const FrameTable& table, FrameRange range) {
  for (const Phase& p : FindPhases(table))
    if (p.frames.from == range.from && p.frames.to == range.to) return &p;
  return nullptr;
}

}  // namespace memframe::analysis
