#include "hooks/present_hooks.h"

namespace memframe::agent {

namespace {
const PresentEntryPoint kEntryPoints[] = {
    {kMarkerGlfwSwapBuffers, "glfwSwapBuffers"},
    {kMarkerGlxSwapBuffers, "glXSwapBuffers"},
    {kMarkerEglSwapBuffers, "eglSwapBuffers"},
    {kMarkerSdlGlSwapWindow, "SDL_GL_SwapWindow"},
    {kMarkerSdlGlSwapBuffers, "SDL_GL_SwapBuffers"},
};
constexpr int kCount = static_cast<int>(sizeof(kEntryPoints) / sizeof(kEntryPoints[0]));
}  // namespace

const PresentEntryPoint* PresentEntryPoints(int* count) {
  *count = kCount;
  return kEntryPoints;
}

const char* PresentEntryPointName(uint32_t marker_id) {
  for (const PresentEntryPoint& e : kEntryPoints)
    if (e.marker_id == marker_id) return e.name;
  return "";
}

}  // namespace memframe::agent
