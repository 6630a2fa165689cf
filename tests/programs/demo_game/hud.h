// The heads-up display line, rebuilt as a std::string every gameplay frame:
// the textbook "one hidden heap allocation per frame" that memframe exists
// to reveal.
#pragma once

#include <string>

#include "entities.h"

namespace memframe::demo {

// Returns exactly kHudTextLength characters, e.g.
// "SCORE 0001234  HITS 000120  FRAME 000060". libstdc++ allocates once for
// it: kHudTextAllocationBytes (length + NUL).
std::string BuildHudText(const Entities& entities, int gameplay_frame);

}  // namespace memframe::demo
