// Hooks at a function's entry, for `memframe attach`: a game that fetched
// its present through a pointer before the attach (SDL keeps glXSwapBuffers
// from glXGetProcAddressARB) calls it without going through any import slot
// the GOT patcher can rewrite. The entry's first instruction becomes a jump
// to the hook (through a relay page within 2 GiB); the instructions it
// overwrites are moved to that page (x86_prologue.h) and continue into the
// rest of the function, and the hook calls that continuation as the real
// function.
//
// The jump is written with one aligned 8-byte store while the game runs, so
// a thread fetching the entry sees either the old or the new instruction.
// What this cannot rule out: a thread that had executed the first
// instruction of a prologue of several and resumes in the middle of the
// jump, or code elsewhere that branches into the overwritten bytes; the
// window is a few instructions wide, once per present.
//
// Only the agent's attach thread arms and disarms; IsEntryTrampolineReal is
// lock-free and safe in a hook.
#pragma once

#include <atomic>
#include <cstdint>

namespace memframe::agent {

// Makes calls to `entry` go to `hook`. Before the entry changes, *real is
// set to the moved prologue, so that the hook never calls the patched
// entry. True when the entry is patched now (or was already); false, after
// a warning that names `name` and the reason, when it cannot be done safely.
bool ArmEntryTrampoline(const char* name, uintptr_t entry, void* hook, std::atomic<void*>* real);

// Writes the original bytes of every armed entry back (when its module is
// still the one patched). The moved prologues stay mapped: a thread may be
// in one, and the hooks keep calling them. Returns how many were restored.
size_t DisarmEntryTrampolines();

// True if *real is a trampoline's moved prologue: a lookup that finds the
// function again (dlsym, glXGetProcAddress) must not replace it with the
// patched entry, which would call the hook again.
bool IsEntryTrampolineReal(const std::atomic<void*>* real);

// Entries armed now, for tests and the attach report.
size_t ArmedEntryTrampolines();

// The entries refused so far, one "NAME: not patched at its entry: REASON"
// line each (the attach passes them to memframe, which prints them).
const char* EntryTrampolineRefusals();

}  // namespace memframe::agent
