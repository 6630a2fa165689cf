// How long each call site's blocks live, and which allocator would serve the
// site better than the general heap. The classes and their rule (first match
// wins; "share" is kLifetimeShare of the site's allocations):
//
//   frame       a share of the blocks is freed in the frame that allocated it
//               -> a frame arena (linear allocator reset every frame)
//   long-lived  a share of the blocks lives to the end of the capture (still
//               live, or freed in the teardown after the last ended frame)
//               -> allocate once, from a permanent arena
//   level       a share of the blocks is freed at a phase boundary or lives
//               to the end, at least one at a boundary -> a level (stack)
//               allocator released at the boundary
//   ring        the site allocates at least kPoolTurnover times its peak
//               live count, and a share of its frees in play (neither at a
//               phase boundary nor in the teardown) free the oldest live block of the site (by the frame it was
//               allocated in) a fixed number of frames (at least 1) after
//               it was allocated:
//               particles, per-frame command buffers -> a ring buffer of
//               peak-live slots (x the size, when there is one size)
//   pool        every block has the same size and the site allocates at least
//               kPoolTurnover times its peak live count (each slot of a
//               pool sized for the peak is reused) -> a fixed-size pool
//   general     none of these: the general heap is the right place
//
// A phase boundary is a frame that holds a MARKER event, a frame of a load
// or an unload (phases.h; the first 16 of a long one), the first frame of a
// steady phase that follows another (a menu left for the map without a
// load), or a free burst: a frame whose frees of blocks from earlier frames
// stand far above the frames around it by the rule of a load's heavy frames
// (phases.h) and number at least 64. The frames counted are those that occur (an event carries the
// number, or a FRAME_END names it), as in the frames report: a gap in the
// numbers is no frame.
//
// The rules assume steady play (a "frame" in start-up or a load is no game
// frame), so the reports judge only the blocks allocated in the steady
// frames (phases.h JudgeFrames) unless asked for all: a site is classed, and
// counted, by those blocks alone; boundaries are found over the whole run.
#pragma once

#include <cstdint>
#include <vector>

#include "memframe/analysis/capture_model.h"
#include "memframe/analysis/frame_range.h"
#include "memframe/analysis/phases.h"

namespace memframe::analysis {

constexpr double kLifetimeShare = 0.95;
constexpr uint64_t kPoolTurnover = 2;

enum class LifetimeClass { kFrame, kLongLived, kLevel, kPool, kGeneral, kRing };

struct SiteLifetime {
  uint32_t stack_id = 0;
  LifetimeClass lifetime = LifetimeClass::kGeneral;
  uint64_t allocations = 0;
  uint64_t bytes = 0;
  uint64_t frees = 0;
  uint64_t size_min = 0, size_max = 0;
  uint64_t freed_same_frame = 0;   // lifetime 0 frames
  uint64_t freed_at_boundary = 0;  // freed in a boundary frame, in a later frame than allocated
  uint64_t lived_to_end = 0;       // still live at the end, or freed in the teardown
  uint64_t lifetime_frames_max = 0;  // over the freed blocks (frame numbers apart)
  // The most common lifetime of the frees in play in allocation order, and
  // how many such frees had it (the ring rule).
  uint64_t ring_delay_frames = 0;
  uint64_t ring_frees = 0;
  // What an allocator for the class must hold: the most blocks and bytes of
  // the site live at one time.
  uint64_t peak_live_blocks = 0;
  uint64_t peak_live_bytes = 0;
  // What moving the site off the general heap saves: every malloc and free
  // call of it and the bytes it allocates (0 for kGeneral).
  uint64_t calls_saved = 0;
  uint64_t bytes_saved = 0;
};

// The frame arena that would serve every frame-class site: the bytes they
// allocate per judged frame (every judged frame that occurs, 0 when they
// allocate nothing in it), its 99th percentile (nearest rank) sizing the
// arena, and what the arena takes off the heap.
struct FrameArenaAdvice {
  uint64_t frames = 0;
  uint64_t p99_bytes = 0;
  uint64_t max_bytes = 0;
  uint64_t calls_saved = 0;
  uint64_t bytes_saved = 0;
};

struct LifetimeReport {
  std::vector<uint64_t> boundary_frames;  // ascending
  // Frames after this one are the teardown (no FRAME_END); meaningless
  // without ended frames (has_teardown false).
  uint64_t last_ended_frame = 0;
  bool has_teardown = false;
  // By calls saved, then bytes saved, then allocations (descending), then stack id.
  std::vector<SiteLifetime> sites;
  FrameArenaAdvice frame_arena;
};

// `phases`: the stream's (FrameTable::phases), whose loads and changes of
// part are the boundaries. `judged`: the blocks allocated in these frames
// (ascending, disjoint) are the ones judged; empty: every block.
LifetimeReport AnalyzeLifetimes(const Stream& stream, const std::vector<Phase>& phases,
                                const std::vector<FrameRange>& judged = {});
// The blocks allocated in the frames JudgeFrames chose (every block when it
// chose every frame: the teardown's and unended frames' too).
LifetimeReport AnalyzeLifetimes(const Stream& stream, const std::vector<Phase>& phases, const JudgedFrames& judged);

// The frame arena of the frame-class sites among `sites` (a report's sites,
// or some of them: the classes a view keeps), over the blocks allocated in
// `judged` as AnalyzeLifetimes takes it; a replay when there is one.
FrameArenaAdvice AdviseFrameArena(const Stream& stream, const std::vector<SiteLifetime>& sites,
                                  const std::vector<FrameRange>& judged);

// The level allocator each load phase (phases.h) would need: what the load
// allocated (the calls and bytes such an allocator takes off the heap) and
// what of it is still live at the load's last frame (the allocator's size:
// the level's data, released at the next boundary).
struct LevelLoad {
  FrameRange frames;
  uint64_t allocations = 0;
  uint64_t bytes_allocated = 0;
  uint64_t kept_blocks = 0;
  uint64_t kept_bytes = 0;
};
std::vector<LevelLoad> AnalyzeLevelLoads(const Stream& stream, const std::vector<Phase>& phases);

const char* LifetimeClassName(LifetimeClass c);  // "frame", "long-lived", "level", "pool", "general"
const char* LifetimeAdvice(LifetimeClass c);     // one line of advice

}  // namespace memframe::analysis
