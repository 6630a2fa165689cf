#include "hooks/present_hooks.h"

namespace memframe::agent {

const char* FixedMarkerName(uint32_t marker_id) {
  switch (marker_id) {
    case kMarkerGlfwSwapBuffers: return "glfwSwapBuffers";
    case kMarkerGlxSwapBuffers: return "glXSwapBuffers";
    case kMarkerEglSwapBuffers: return "eglSwapBuffers";
    case kMarkerSdlGlSwapWindow: return "SDL_GL_SwapWindow";
    case kMarkerSdlGlSwapBuffers: return "SDL_GL_SwapBuffers";
    case kMarkerSdlRenderPresent: return "SDL_RenderPresent";
    case kMarkerSdlUpdateWindowSurface: return "SDL_UpdateWindowSurface";
    case kMarkerSdlFlip: return "SDL_Flip";
    case kMarkerSdlUpdateRect: return "SDL_UpdateRect";
    case kMarkerSdlUpdateRects: return "SDL_UpdateRects";
    case kMarkerVkQueuePresent: return "vkQueuePresentKHR";
    case kMarkerTimeSlice: return "time slice";
    case kMarkerAnnotation: return "memframe_frame_mark";
    default: return nullptr;
  }
}

}  // namespace memframe::agent
