// The first instructions of an x86-64 function, moved elsewhere so that
// its entry can be overwritten by a jump (entry_trampolines.h). Zydis
// decodes (lengths, ModRM, relative operands: a hand-written decoder's wrong
// length or missed relative operand would crash the game); memframe's policy
// decides: RIP-relative operands and jmp/jcc are moved and fixed, calls,
// breakpoints, system instructions and other relative branches are refused
// with a reason rather than guessed.
#pragma once

#include <cstddef>
#include <cstdint>

namespace memframe::agent {

// Bytes of an absolute jump: jmp *0(%rip) followed by the 8-byte target.
constexpr size_t kAbsoluteJumpBytes = 14;

// Writes an absolute jump to `target` at `out` (kAbsoluteJumpBytes).
void WriteAbsoluteJump(uint8_t* out, uintptr_t target);

struct MovedPrologue {
  size_t taken = 0;            // bytes of whole instructions taken from the entry
  size_t written = 0;          // bytes written at `out`, the jump back included
  const char* refusal = nullptr;  // why not, when RelocatePrologue fails
};

// Copies the whole instructions that cover the entry's first `min_bytes`
// into `out` (which runs where it is written), fixes RIP-relative operands
// and relative branches for their new place, and ends with a jump back to
// the first instruction not taken (unless the last one taken was an
// unconditional jump). Every displacement must still reach from `out`:
// put it within 2 GiB of the entry. False, with `refusal` set, when the
// prologue holds an instruction it cannot move safely: a call (a thread
// inside the callee would return into the patched bytes), a return or a
// jump back into the moved bytes, an instruction it does not know.
bool RelocatePrologue(const uint8_t* entry, size_t min_bytes, uint8_t* out, size_t capacity, MovedPrologue* moved);

// Where a call to `entry` really lands: follows the forwarding stubs that
// libraries put at exported entries (jmp rel, jmp *GOT(%rip), glvnd's
// `mov table(%rip), %rax; jmp *slot(%rax)`, SDL's dynamic API jumps), up
// to a few hops. Pointers are read with process_vm_readv, so a stub whose
// table is not set up yet ends the walk instead of faulting.
uintptr_t FollowForwarders(uintptr_t entry);

}  // namespace memframe::agent
