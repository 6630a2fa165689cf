// The agent's own memory comes straight from the mmap system call, never
// from the hooked allocator nor through the agent's own mmap hook: it must
// not show up in the game's profile, it must work while malloc itself is
// being resolved, and a hook that needs a page (a new thread's ring, a new
// chunk of the stack table) must not re-enter a hook.
//
// Each platform defines MapPages, UnmapPages, MapHugePages, PrefaultPages and
// DiscardPages in its os_pages.h, in agent/platform/<os>/, the folder the
// build puts on the include path.
#pragma once

#include "os_pages.h"
