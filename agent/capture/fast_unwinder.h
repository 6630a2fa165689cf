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
