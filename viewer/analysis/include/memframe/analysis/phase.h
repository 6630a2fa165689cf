// One phase of a run (phases.h finds them): start-up or the attach, a load,
// an unload, a stretch of steady play, the teardown. Its own header so that
// the frame table can carry the phases it was cut into.
#pragma once

#include <cstdint>
#include <string>

#include "memframe/analysis/frame_range.h"

namespace memframe::analysis {

// The spike rule over a set of values (frame_stats.h ComputeSpikeThreshold).
struct SpikeThreshold {
  uint64_t median = 0;
  uint64_t mad = 0;        // median absolute deviation
  uint64_t threshold = 0;  // a value above it is a spike
};

enum class PhaseKind {
  kStartup,   // frame 0 (everything before the first present) and the heavy frames right after it
  kAttached,  // the same for a capture that starts at `memframe attach`: the game was already running
  kLoad,      // frames that leave the live heap well above where it was, or a sustained run of heavy allocation
  kUnload,    // frames that leave the live heap well below where it was
  kSteady,    // play between them, cut where the allocation rate changes for good (menu, map, level)
  kTeardown,  // the frames after the last one that ended
};

struct Phase {
  PhaseKind kind = PhaseKind::kSteady;
  uint32_t ordinal = 1;  // 1-based among the phases of its kind: "load 2" is the second load
  FrameRange frames;
  uint64_t allocations = 0;
  uint64_t bytes_allocated = 0;
  uint64_t bytes_freed = 0;
  uint64_t frame_before = 0;  // the frame before the phase (numbers may have gaps); the first phase: its own first
  uint64_t live_before = 0;   // live heap at the end of frame_before (0 for the first phase)
  uint64_t live_after = 0;    // live heap at the end of its last frame
  // Steady phases: the thresholds over the phase's own frames (frame_stats.h
  // spike rule) and how many of its frames spike. Zero for other kinds.
  SpikeThreshold allocation_spike;
  SpikeThreshold bytes_spike;
  uint64_t spikes = 0;
};

// "start-up", "attached", "load", "unload", "steady", "teardown".
const char* PhaseKindName(PhaseKind kind);
// The phase's stable name: "load 2", "steady 1"; "start-up", "attached" and
// "teardown" have no number (there is at most one of each).
std::string PhaseName(const Phase& phase);

}  // namespace memframe::analysis
