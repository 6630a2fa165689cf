// The in-memory model of one capture: what the agent streams said, decoded
// and put in one global order. Analyses (frames, sites, leaks) read it; they
// never see protobuf.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "memframe/analysis/clock.h"
#include "memframe/analysis/event.h"
#include "memframe/analysis/event_store.h"
#include "memframe/analysis/gpu_event.h"

namespace memframe::analysis {

struct Segment {
  uint64_t vaddr = 0;
  uint64_t memsz = 0;
};

// A return address named where the program ran (SymbolDefs: the Windows
// agent's DbgHelp), for a module the analysis cannot read as ELF.
struct RecordedSymbol {
  std::string function;
  std::string file;  // "" if unknown
  uint32_t line = 0;  // 0 if unknown
};

struct Module {
  std::string path;
  uint64_t load_bias = 0;
  std::vector<Segment> segments;
  std::string build_id;  // raw bytes, empty if unknown
  // Return address - load_bias -> its name, from the capture.
  std::unordered_map<uint64_t, RecordedSymbol> recorded_symbols;

  // Lowest address of its segments and one past the highest ({0, 0}
  // without segments).
  std::pair<uint64_t, uint64_t> AddressRange() const {
    if (segments.empty()) return {0, 0};
    uint64_t start = UINT64_MAX, end = 0;
    for (const Segment& s : segments) {
      start = std::min(start, load_bias + s.vaddr);
      end = std::max(end, load_bias + s.vaddr + s.memsz);
    }
    return {start, end};
  }
};

struct Thread {
  uint32_t tid = 0;
  std::string name;
  uint64_t first_ticks = 0;
  bool exited = false;
  uint64_t events = 0;
  uint64_t dropped = 0;  // events the agent dropped on this thread (drop mode)
  // memframe's own (its writer, wire::kWriterThreadName): it ends the
  // time-slice frames, but is no thread of the game's, so no count, list,
  // report or export of the game's threads shows it.
  bool memframe = false;
};

// The game's threads: every thread of the stream but memframe's own.
inline size_t GameThreadCount(const std::vector<Thread>& threads) {
  return static_cast<size_t>(std::count_if(threads.begin(), threads.end(), [](const Thread& t) { return !t.memframe; }));
}

enum class AllocatorKind : uint8_t { kOther = 0, kFrameArena = 1, kLevelStack = 2, kPool = 3, kRing = 4, kHeap = 5 };

// One of the game's own allocators, as it declared it (annotate.h): its
// custom blocks are those inside [base, base + capacity). Or a private heap
// the game created (kHeap, Windows' HeapCreate, declared by the agent): its
// blocks are the heap blocks whose Event::heap names it, and it holds no
// custom block.
struct AllocatorInfo {
  uint32_t id = 0;  // 1 and up, in the order declared
  std::string name;
  AllocatorKind kind = AllocatorKind::kOther;
  uint64_t base = 0;
  uint64_t capacity = 0;
  // Where it was made, when the agent saw it (a heap's HeapCreate call); 0
  // when unknown (AllocatorUsage::created_frame puts the ticks in a frame).
  uint32_t stack_id = 0;
  uint32_t thread_id = 0;  // the kernel's thread id
  uint64_t ticks = 0;

  bool Holds(uint64_t address) const {
    return kind != AllocatorKind::kHeap && address >= base && address - base < capacity;
  }
};

// What Hello said about the process.
struct ProcessInfo {
  uint32_t protocol_version = 0;
  uint32_t pid = 0;
  uint32_t ppid = 0;
  std::string executable;
  std::vector<std::string> argv;
  std::string agent_version;
  uint32_t max_stack_depth = 0;
  // memframe attach: the recording starts in a running process, so blocks
  // allocated before are unknown and their frees are expected. A kept
  // window (--keep-last) starts the same way, and says so in `window`.
  bool attached = false;
  struct WindowStart {
    bool present = false;     // the stream starts at a kept window's head
    uint64_t first_frame = 0;  // the agent's number of its first frame held in full
    uint64_t dropped_events = 0;  // its events before the window
  } window;
  // The allocator the executable defines itself (a statically linked
  // jemalloc, a heap of its own), which the agent hooks at its entry points.
  struct OwnAllocator {
    bool present = false;
    std::string name;                  // "jemalloc", ...; "" for a heap of the program's own
    std::vector<std::string> hooked;   // "malloc", "_Znwm", ...
    std::vector<std::string> refused;  // "SYMBOL: why"
  } own_allocator;
  // The allocator libraries whose own API (mi_malloc, mallocx, ...) the
  // agent hooked: their calls are in the stream as malloc / free events.
  struct AllocatorApi {
    std::string name;                 // "mimalloc", "jemalloc"
    std::string library;              // the module that defines it
    std::vector<std::string> hooked;  // "mi_malloc", ...
  };
  std::vector<AllocatorApi> allocator_apis;
};

// One agent connection (one process).
struct Stream {
  uint32_t stream_id = 0;
  bool has_hello = false;
  ProcessInfo process;
  Clock clock;
  std::vector<Module> modules;  // every module ever reported, deduplicated by path + load bias
  std::unordered_map<uint32_t, std::vector<uint64_t>> stacks;  // id -> return addresses, innermost first
  std::unordered_map<uint32_t, std::string> markers;           // id -> name
  std::vector<AllocatorInfo> allocators;                       // declared, by id (allocators.h)
  std::vector<Thread> threads;
  // Global order: by ticks, each thread's own order kept; ties keep the
  // order the batches arrived in; clock races on a block handed between
  // threads undone. Compressed in memory (event_store.h).
  EventStore events;
  // Events read in that order but passed to an analysis instead of kept in
  // `events` (summary_load.h); EventCount says how many the stream holds.
  uint64_t streamed_events = 0;

  // GPU objects made, resized and deleted (FORMAT.md, "GPU objects"), in
  // the order of their ticks, each in the frame of the frames above.
  std::vector<GpuEvent> gpu_events;
  uint64_t gpu_dropped = 0;  // GPU events the agent dropped (drop mode)

  bool has_end = false;  // EndOfStream seen
  uint64_t end_events = 0;
  uint64_t end_dropped = 0;
  uint64_t end_last_frame = 0;
  uint64_t end_unrecorded_in_signal_handlers = 0;
  std::string end_reason;
  uint64_t ticks_went_backwards = 0;  // events whose tick was raised to keep their thread's order
  // Clock races between threads the merge undid (a block freed on one thread
  // and reused on another stamped in the wrong order; handoff_repair.h).
  uint64_t handoffs_repaired = 0;
};

inline uint64_t EventCount(const Stream& s) { return s.events.size() + s.streamed_events; }

// Short description of a stream that was not analysed.
struct StreamSummary {
  uint32_t stream_id = 0;
  uint32_t pid = 0;
  std::string executable;
  uint64_t events = 0;
};

// A named moment a viewer asked the recorder for while following the run
// (a Snapshot record on stream 0). The loader also makes it a MARKER event
// of that name in the main stream, at its place in time.
// memframe run --keep-last: what the saved window holds (FORMAT.md, "Kept
// windows"), and per-frame totals of the whole run.
struct KeptWindowInfo {
  bool present = false;
  uint64_t keep_last_ms = 0;
  std::string saved_for;  // "end of run", "mark 'NAME'", "signal SIGUSR1"
  uint64_t first_unix_ns = 0;
  uint64_t dropped_records = 0, dropped_events = 0;
};
struct FrameTotalsSeries {
  uint32_t stream = 0;
  uint64_t first_frame = 0;  // the agent's frame numbers
  std::vector<uint64_t> allocs, frees, allocated_bytes, freed_bytes, live_bytes;
};

struct RecorderSnapshot {
  std::string name;
  uint64_t monotonic_ns = 0;
  uint64_t unix_ns = 0;
};

// What stream 0 (the recorder) said.
struct RecorderInfo {
  bool seen = false;
  std::string command_line;
  uint64_t start_unix_ns = 0;
  bool finished = false;  // the closing record was written
  int32_t exit_status = 0;  // valid when finished, unless detached
  int32_t termination_signal = 0;  // valid when finished: the signal that killed the program, 0 if it exited
  std::string recorder_version;
  bool attached = false;         // memframe attach: recorded from an attach on
  bool detached = false;         // ended by a detach; the process ran on
  uint32_t attach_pause_us = 0;  // how long the injection kept a thread from its own code
  std::vector<RecorderSnapshot> snapshots;  // in the order they were taken
  KeptWindowInfo kept_window;
  std::vector<FrameTotalsSeries> frame_totals;  // one per agent stream, of a kept window
};

struct Capture {
  std::string path;
  RecorderInfo recorder;
  // The stream with the most events; the analyses look at this one only.
  Stream main;
  bool has_main = false;
  std::vector<StreamSummary> other_streams;
  // Non-empty when the file is damaged: everything before the damage is in
  // the model, nothing after it.
  std::string damage;

  // An EndOfStream was seen and the file was undamaged.
  bool complete() const { return has_main && main.has_end && damage.empty(); }
};

}  // namespace memframe::analysis
