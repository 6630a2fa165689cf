// A fast path for unw_backtrace on x86_64: a global cache from return
// address to a compact unwind rule read from the module's .eh_frame, so a
// warm unwind is a table probe and one or two stack loads per frame.
//
// It answers only for frames whose rule is simple (CFA = rsp or rbp plus an
// offset, return address at CFA-8, caller's rbp unchanged or saved at a CFA
// offset) and then gives exactly the frames unw_backtrace gives: the
// return address of every frame, innermost first, up to the frame whose CFI
// marks the return address undefined (_start, clone3). Anything else (no
// CFI, DWARF expressions, signal frames, odd augmentations, a CFA that does
// not move up the stack) makes it decline, and the caller uses libunwind.
//
// Never allocates, never locks on a hit. A miss finds the module with
// _dl_find_object (lock-free; before glibc 2.35 dl_iterate_phdr, under the
// loader's lock, as libunwind does on its own misses) and parses the FDE in
// place, allocation-free.
#pragma once

#include <cstdint>

namespace memframe::agent {

// Reserves the rule cache (mmap). Idempotent; false when it could not.
bool InitFastUnwinder();

// Like unw_backtrace(raw, size): raw[0] is the return address into the
// caller of FastBacktrace, raw[1] the caller's return address, and so on.
// Returns the number of frames, or -1 when it declines (nothing usable in
// raw then): the caller must unwind with libunwind instead.
int FastBacktrace(void** raw, int size);

// The same from the frame of a function further out: `frame` is the value
// __builtin_frame_address(0) had in it (a frame pointer: saved rbp at
// frame[0], return address at frame[1]). raw[0] is that function's return
// address. A hook passes its own frame, so the agent's frames between it
// and the unwinder are never walked.
int FastBacktraceFrom(const void* frame, void** raw, int size);

// What one walk from a hook's frame read off the stack, in the order it
// read it: every word its frames depend on (each return address, and the
// saved rbp wherever a later frame's rule takes its CFA from rbp), with the
// value it read. The walk is a function of its start, those words, the
// rules (fixed for a generation of the rule cache) and the stack's top: a
// later walk from the same frame, on the same thread, that finds every word
// unchanged gives the same frames. Checking that is loads from known
// addresses, not the walk's chain from frame to frame through the rule
// cache (tests/bench/README.md, "The walk memo").
struct WalkTrace {
  static constexpr int kMaxFrames = 72;  // longer walks are not traced
  struct Read {
    uint64_t address, value;
  };
  uint64_t frame = 0;       // where the walk started; 0: nothing to repeat
  uint64_t return_address;  // frame[1], its first frame: most other walks differ there
  uint32_t generation;      // of the rule cache (a module unloaded since ends it)
  int size;                 // the walk's `size`
  int reads;
  Read read[2 * kMaxFrames + 1];
};

// FastBacktraceFrom that also fills `trace` (frame 0 unless it answered,
// from the thread's own stack, in at most WalkTrace::kMaxFrames frames).
int FastBacktraceFrom(const void* frame, void** raw, int size, WalkTrace* trace);

// The first of traces[0..count) whose walk FastBacktraceFrom(frame, raw,
// size) would now repeat exactly (the caller keeps those frames), or -1.
// Reads only words the traced walks read, on the calling thread's own stack.
int RepeatedWalk(const WalkTrace* traces, int count, const void* frame, int size);

// Looks up the calling thread's stack once, so that later walks on it never
// read above its top. Allocation-free and lock-free (safe inside any hook).
// Until then, and off that stack (fibers, signal stacks), walks read at most
// 1 GiB above their start.
void NoteThreadStack();

// Forgets every cached rule. Called after a module was unloaded, so no rule
// outlives the code it describes.
void InvalidateFastUnwinder();

// Writer side: commits the rule cache's pages (page_allocator.h), so the
// game's threads never fault on it.
void PrefaultFastUnwinder();

}  // namespace memframe::agent
