#include "hud.h"

#include <cstdio>
#include <stdexcept>

namespace memframe::demo {

__attribute__((noinline)) std::string BuildHudText(const Entities& entities, int gameplay_frame) {
  // Formatting into a stack buffer and constructing the string once makes
  // the allocation size independent of libstdc++'s growth policy (appending
  // piece by piece would reallocate, reserve() rounds up small requests).
  // Every field is zero-padded to a fixed width; the values stay far below
  // those widths, so the length never varies.
  char buffer[kHudTextLength + 1];
  const int length = std::snprintf(buffer, sizeof(buffer), "SCORE %07d  HITS %06d  FRAME %06d",
                                   static_cast<int>(entities.score % 10'000'000),
                                   static_cast<int>(entities.hits_landed % 1'000'000),
                                   gameplay_frame % 1'000'000);
  if (length != static_cast<int>(kHudTextLength)) {
    throw std::logic_error("demo game: HUD text length differs from demo_truth.h");
  }
  return std::string(buffer, kHudTextLength);
}

}  // namespace memframe::demo
