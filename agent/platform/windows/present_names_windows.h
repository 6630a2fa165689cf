// The presents that end frames on Windows, by the names their markers carry
// in a capture and that --frame-source takes for a Windows game, for the
// agent (present_hooks_windows.cc) and memframe.exe, which refuses any other
// present. Generated from the one table (memframe/frame_sources.h). Header
// only, no Windows headers.
#pragma once

#include <cstring>

#include "memframe/frame_sources.h"

namespace memframe::agent {

enum PresentApi {
#define MEMFRAME_X(Enumerator, name) k##Enumerator,
  MEMFRAME_WINDOWS_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_X
  kPresentApiCount
};

inline constexpr const char* kWindowsPresentNames[kPresentApiCount] = {
#define MEMFRAME_X(Enumerator, name) name,
    MEMFRAME_WINDOWS_PRESENTS(MEMFRAME_X)
#undef MEMFRAME_X
};

// The present named `name`, or kPresentApiCount.
inline PresentApi WindowsPresentNamed(const char* name) {
  for (int api = 0; api < kPresentApiCount; ++api)
    if (name && strcmp(kWindowsPresentNames[api], name) == 0) return static_cast<PresentApi>(api);
  return kPresentApiCount;
}

}  // namespace memframe::agent
