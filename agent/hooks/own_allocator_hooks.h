// The hooks for an allocator the executable defines itself, and the call
// that patches them in (own_allocator_patch.h says when that is safe).
#pragma once

#include "attach/own_allocator_patch.h"

namespace memframe::agent {

// Patches the entry of every allocator function the executable defines
// (the malloc family, operator new and delete) to jump to its hook, at
// launch or at an attach (own_allocator_patch.h). Call with the recursion
// guard held.
void HookExecutableAllocator(OwnAllocatorPatching when);

}  // namespace memframe::agent
