// The JSON of the rows that `memframe report --json` and memframe-viewer's
// --dump-view-data both write (REPORTS.md): each row's keys are defined
// here once, so a site, a thread, a size bin or a mismatch has one shape
// wherever it is written. Stacks are written once per document and rows
// name them by "stack_id" (JsonStackTable).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include <nlohmann/json.hpp>

#include "memframe/analysis/allocators.h"
#include "memframe/analysis/gpu_objects.h"
#include "memframe/analysis/lifetimes.h"
#include "memframe/analysis/live_set_diff.h"
#include "memframe/analysis/mismatches.h"
#include "memframe/analysis/phases.h"
#include "memframe/analysis/size_histogram.h"
#include "memframe/analysis/thread_stats.h"
#include "memframe/report/site_row.h"

namespace memframe::analysis {

// Keys in the order REPORTS.md lists them.
using json = nlohmann::ordered_json;

// The stacks a document's rows name by `stack_id`, written once at its end
// (REPORTS.md, "Stacks in JSON"): a stack is the indices of its frames in
// one table of distinct frames, so a document's size follows what it
// shows, not its rows times their depth.
struct JsonStackTable {
  std::map<uint32_t, std::vector<uint32_t>> stacks;  // stack id -> frame indices, innermost first
  std::vector<SourceFrame> frames;
  std::unordered_map<std::string, uint32_t> frame_index;  // a frame's fields -> its index in `frames`
  void Add(uint32_t stack_id, const std::vector<SourceFrame>& stack);
  // Sets j["stacks"] and j["stack_frames"].
  void WriteInto(json& j) const;
};

// A site-statistics row (REPORTS.md "Site object"); its stack goes into `stacks`.
json SiteJson(const SiteView& view, JsonStackTable& stacks);
// The short form for rows that are not site statistics (diff, lifetimes,
// mismatches, locality, allocators): stack_id, name, module, module_class,
// function, location, thread, threads.
json StackRefJson(const SiteView& view, JsonStackTable& stacks);
// "driver", or null for a site without a stack.
json ModuleClassJson(const SiteView& view);
// A leaked site: its SiteJson over the whole capture, with the blocks it
// left and their bytes.
json LeakJson(const SiteView& view, uint64_t blocks, uint64_t leaked_bytes, JsonStackTable& stacks);

json RangeJson(FrameRange r);
// {"judged": "steady" | "all", "ranges": [...], "frame_count", "all_frames_option"}.
json JudgedFramesJson(const JudgedFrames& judged);

// A thread's row of `threads`: `allocations_per_frame` over the frames the
// document says (the report: every frame; the viewer: the judged ones),
// `alloc_time_ns` every thread's allocator time (for its share).
json ThreadJson(const ThreadStats& t, double allocations_per_frame, uint64_t alloc_time_ns);
// A size bin: {bin, size_min, size_max, allocations, bytes}.
json SizeBinJson(int bin, const SizeBinTotals& totals);
// A mismatch row; `alloc` and `free` name its stacks (ignored when the
// mismatch has none).
json MismatchJson(const Mismatch& m, const SiteView& alloc, const SiteView& free, JsonStackTable& stacks);

// A site of a live-set diff: its stack reference, how it changed and its
// blocks and bytes in A and in B.
json DiffRowJson(const LiveSetDiffRow& row, const SiteView& view, JsonStackTable& stacks);
// A site's lifetime row: its stack reference, from_game, whether the game
// owns the allocation (`owned`), the class, the advice and its figures.
json LifetimeJson(const SiteLifetime& s, const SiteView& view, bool owned, JsonStackTable& stacks);
// A GPU object: kind, name, sizes, format, dimensions, frames, and the
// stack reference of the call that made it ("site").
json GpuObjectJson(const GpuObject& o, const SiteView& made_by, JsonStackTable& stacks);
// An allocator's row (one declared through annotate.h, or a Windows private
// heap): its title, where and when a heap was made (`created_by`: its
// creation stack), its figures, and the blocks that outlived its releases,
// each with the stack reference of its allocation (`outlived_sites[i]`
// names outlived[i]'s).
json AllocatorJson(const AllocatorUsage& u, const std::string& title, const SiteView& created_by,
                   const std::vector<SiteView>& outlived_sites, JsonStackTable& stacks);

}  // namespace memframe::analysis
