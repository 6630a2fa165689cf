// The hooks for an allocator the executable defines itself, and the call
// that patches them in (own_allocator_patch.h says when that is safe).
#pragma once

namespace memframe::agent {

// Patches the entry of every allocator function the executable defines
// (the malloc family, operator new and delete) to jump to its hook; with
// `why_not`, patches nothing and reports each as refused for that reason.
// Call with the recursion guard held.
void HookExecutableAllocator(const char* why_not);

}  // namespace memframe::agent
