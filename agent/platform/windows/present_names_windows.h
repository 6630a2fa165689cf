// The presents that end frames on Windows, by the names their markers carry
// in a capture and that --frame-source takes for a Windows game: one list
// for the agent (present_hooks_windows.cc), memframe.exe, which refuses any
// other present, and the recorder's CLI. Header only, no Windows headers:
// the Linux CLI includes it.
#pragma once

#include <cstring>

namespace memframe::agent {

enum PresentApi { kSwapBuffers, kWglSwapBuffers, kWglSwapLayerBuffers, kVkQueuePresent, kDxgiPresent, kPresentApiCount };

// Present and Present1 are one entry point: the analysis takes frames from
// one, and a game may present one swap chain through both.
inline constexpr const char* kWindowsPresentNames[kPresentApiCount] = {
    "SwapBuffers", "wglSwapBuffers", "wglSwapLayerBuffers", "vkQueuePresentKHR", "IDXGISwapChain::Present"};

// The present named `name`, or kPresentApiCount.
inline PresentApi WindowsPresentNamed(const char* name) {
  for (int api = 0; api < kPresentApiCount; ++api)
    if (name && strcmp(kWindowsPresentNames[api], name) == 0) return static_cast<PresentApi>(api);
  return kPresentApiCount;
}

}  // namespace memframe::agent
