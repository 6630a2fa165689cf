// Hooks at a function's entry, for `memframe attach`: a game that fetched
// its present through a pointer before the attach (SDL keeps glXSwapBuffers
// from glXGetProcAddressARB) calls it without going through any import slot
// the GOT patcher can rewrite. The entry's first instruction becomes a jump
// to the hook (through a relay page within 2 GiB); the instructions it
// overwrites are moved to that page (x86_prologue.h) and continue into the
// rest of the function, and the hook calls that continuation as the real
// function.
//
// The agent only prepares: it builds the relay and the moved prologue, and
// publishes the entry bytes to write (PublishEntryPatches). memframe writes
// them, and writes the originals back before a detach, while every thread
// of the game is stopped and none is inside the bytes rewritten
// (injector/attach/code_patcher.h): a thread that had run the first
// instruction of a prologue of several and resumed in the middle of the
// jump would execute garbage. Calls that reach the moved prologue before
// the jump is written run the function as before.
//
// Only the agent's attach thread prepares, publishes and disarms;
// IsEntryTrampolineReal is lock-free and safe in a hook.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>

namespace memframe::agent {

// Prepares calls to `entry` to go to `hook`: *real is set to the moved
// prologue at once (so that the hook never calls the patched entry), and
// the jump is published for memframe to write. True when the entry is
// prepared now (or was already); false, after a warning that names `name`
// and the reason, when it cannot be done safely. With `refusal`, nothing is
// printed and *refusal gets the reason (a static string); the refusal is
// still listed in EntryTrampolineRefusals().
bool PrepareEntryTrampoline(const char* name, uintptr_t entry, void* hook, std::atomic<void*>* real,
                            const char** refusal = nullptr);

// At launch, from the agent's constructor while it is the process's only
// thread (agent/attach/own_allocator_patch.h): prepares `entry` as above and
// writes its jump at once with plain stores, so it may span two aligned
// words (-O1 code is not 8-byte aligned). Such a patch stays: it is never
// published nor written back. False, with *refusal set to the reason (a
// static string, nothing printed), when it cannot be done safely.
bool ArmEntryTrampolineAlone(const char* name, uintptr_t entry, void* hook, std::atomic<void*>* real,
                             const char** refusal);

// Writes the prepared entries not yet published to `path` (aside, then
// renamed), one line each: "WORD_AT ORIGINAL PATCHED ENTRY LENGTH NAME",
// hexadecimal but NAME: at the 8-aligned WORD_AT, the 8 bytes ORIGINAL
// (little-endian) become PATCHED; the bytes changed are ENTRY to
// ENTRY+LENGTH. Does nothing while memframe has not taken the previous
// file. Returns how many were published.
size_t PublishEntryPatches(const char* path);

// The fallback of a detach without memframe (it was killed): writes the
// original bytes of every entry still patched, with one aligned 8-byte
// store while the game runs (a thread sees either the jump or the original
// instruction). Returns how many were restored. The moved prologues stay
// mapped: a thread may be in one, and the hooks keep calling them.
size_t DisarmEntryTrampolines();

// Writes the jumps of every prepared entry from inside the process, while
// its other threads may run: for the unit tests of the relocation only.
size_t ArmPreparedEntriesInPlaceForTest();

// True if *real is a trampoline's moved prologue: a lookup that finds the
// function again (dlsym, glXGetProcAddress) must not replace it with the
// patched entry, which would call the hook again.
bool IsEntryTrampolineReal(const std::atomic<void*>* real);

// Entries whose jump is written now, for tests.
size_t ArmedEntryTrampolines();

// The entries refused so far, one "NAME: not patched at its entry: REASON"
// line each (the attach passes them to memframe, which prints them).
const char* EntryTrampolineRefusals();

}  // namespace memframe::agent
