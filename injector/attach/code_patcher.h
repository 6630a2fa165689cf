// Writes a few bytes of a running process's code while every thread of it
// is stopped: the entry patches of `memframe attach` (the agent prepares
// them, agent/attach/entry_trampolines.h) and their restore before a
// detach. A thread stopped after the first of the bytes changed and before
// their end would resume in the middle of the new instruction; such a
// thread runs alone for a moment at a time (never single-stepped: see
// TracedThreads::RunAlone) until it is out. If it
// does not leave (a loop, a signal waiting for it), the process runs a
// millisecond and is stopped again, and after a few tries the patch is
// refused.
//
// What it cannot see: a thread inside a signal handler whose interrupted
// context lies in those bytes (it returns there later), and code elsewhere
// that branches into them.
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <string>
#include <vector>

namespace memframe::injector {

struct CodePatch {
  std::string name;          // for messages: the function patched
  uint64_t word_at = 0;      // 8-aligned
  uint64_t from = 0, to = 0; // the 8 bytes there (little-endian) before and after
  uint64_t first = 0;        // the bytes that change: [first, first + length)
  uint64_t length = 0;
};

// True if a thread stopped at `ip` would resume inside the changed bytes of
// `patch` (at their first byte it runs whichever instruction is there whole).
bool ResumesInside(const CodePatch& patch, uint64_t ip);

struct CodePatchResult {
  std::vector<CodePatch> written;     // those now `to` (or `from` when restoring)
  std::vector<std::string> refused;   // "NAME: not patched at its entry: WHY", one per patch left alone
  double stopped_ms = 0;              // from the first stop to the last resume
  int tries = 0;                      // times every thread was stopped
  int steps = 0;                      // moments run alone by threads inside a patch
};

// How many times every thread is stopped before a patch a thread keeps
// sitting inside is refused.
constexpr int kCodePatchTries = 5;

// Writes `to` over `from` for each patch (`from` over `to` when `restore`),
// every thread of `pid` stopped. A patch whose 8 bytes are not what they
// should be is refused (the code changed), never written.
CodePatchResult ApplyCodePatches(pid_t pid, const std::vector<CodePatch>& patches, bool restore);

}  // namespace memframe::injector
