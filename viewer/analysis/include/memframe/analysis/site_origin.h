// Who allocated, read from a symbolized stack: the module that made the
// allocation and the game frame that led there. One definition for every
// report and view (the frame a site is named after, how sites are grouped,
// which class a site is in).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "memframe/analysis/module_class.h"
#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {

struct SiteOrigin {
  // The innermost frame outside memframe and the C/C++ runtime
  // (IsRuntimeModule), preferring one that is not standard-library template
  // code: its module made the allocation. stack.size() when every frame is
  // runtime code.
  size_t alloc = 0;
  // The first frame of a game module from `alloc` outward that is not
  // standard-library code (else the first game frame); stack.size() if none.
  size_t game = 0;
  // The frame a site is named after: `game` when the allocating module is
  // not the game's and a game frame led there, else `alloc` (frame 0 when
  // every frame is runtime code); stack.size() only for an empty stack.
  size_t user = 0;
  // The allocating module's class and file name (frame `user`'s when no
  // frame is outside the runtime); system and "" for an empty stack.
  ModuleClass module_class = ModuleClass::kSystem;
  std::string module;
};

SiteOrigin FindSiteOrigin(const std::vector<SourceFrame>& stack);

// FindSiteOrigin(stack).user.
size_t UserFrameIndex(const std::vector<SourceFrame>& stack);

// True when adding frames further out can no longer move the origin: the
// user frame is game code that is not standard-library code (the viewer
// symbolizes a stack only up to there).
bool OriginSettled(const std::vector<SourceFrame>& stack, const SiteOrigin& origin);

// The game's own code made the allocation or led there (a game frame is on
// the stack): the sites tables list first, what the user can change.
inline bool LedByTheGame(const SiteOrigin& origin, const std::vector<SourceFrame>& stack) {
  return origin.game < stack.size();
}

// Whether the module that allocated (SiteOrigin::module_class) is code the
// user can change: the game's or its engine's. A driver's allocations under
// the game's draw call are the driver's to make, so lifetime advice (which
// allocator a site belongs in) is for these sites alone.
inline bool OwnedByTheGame(ModuleClass allocating) {
  return allocating == ModuleClass::kGame || allocating == ModuleClass::kEngine;
}

// "std::vector<int>::push_back(int const&)", or code from /usr/include/.
bool IsStandardLibraryCode(const SourceFrame& frame);

// How tables name a site: the user frame's function, and when another
// module allocated, that module first: "swrast_dri.so (via DrawGameplay
// render.cpp:62)". "" for an empty stack.
std::string SiteName(const std::vector<SourceFrame>& stack, const SiteOrigin& origin);

}  // namespace memframe::analysis
