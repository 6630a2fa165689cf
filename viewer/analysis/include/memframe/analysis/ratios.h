// The two ratios the reports and views print beside counts.
#pragma once

#include <cstdint>

namespace memframe::analysis {

// A count per frame (0 when there are no frames).
inline double PerFrame(uint64_t count, uint64_t frames) { return frames ? static_cast<double>(count) / frames : 0; }

// A part of a whole (0 of nothing).
inline double Share(uint64_t part, uint64_t whole) { return whole ? static_cast<double>(part) / whole : 0; }

}  // namespace memframe::analysis
