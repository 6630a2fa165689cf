// An EGL program that presents the way engines on EGL do: it links no EGL
// function by name for the swap, but fetches eglSwapBuffers through
// eglGetProcAddress (argv[1] == "proc") or dlsym (argv[1] == "dlsym").
// Renders into a pbuffer on the default display (Xvfb in the tests).
#include <EGL/egl.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "host_truth.h"

int main(int argc, char** argv) {
  bool via_dlsym = argc > 1 && strcmp(argv[1], "dlsym") == 0;
  EGLDisplay display = eglGetDisplay(EGL_DEFAULT_DISPLAY);
  if (display == EGL_NO_DISPLAY || !eglInitialize(display, nullptr, nullptr)) {
    std::fprintf(stderr, "no EGL display\n");
    return 2;
  }
  const EGLint config_attributes[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
  EGLConfig config;
  EGLint count = 0;
  if (!eglChooseConfig(display, config_attributes, &config, 1, &count) || count == 0) {
    std::fprintf(stderr, "no EGL config\n");
    return 2;
  }
  const EGLint surface_attributes[] = {EGL_WIDTH, 64, EGL_HEIGHT, 64, EGL_NONE};
  EGLSurface surface = eglCreatePbufferSurface(display, config, surface_attributes);
  eglBindAPI(EGL_OPENGL_API);
  EGLContext context = eglCreateContext(display, config, EGL_NO_CONTEXT, nullptr);
  eglMakeCurrent(display, surface, surface, context);
  using SwapFn = EGLBoolean (*)(EGLDisplay, EGLSurface);
  SwapFn swap = via_dlsym ? reinterpret_cast<SwapFn>(dlsym(RTLD_DEFAULT, "eglSwapBuffers"))
                          : reinterpret_cast<SwapFn>(eglGetProcAddress("eglSwapBuffers"));
  if (!swap) {
    std::fprintf(stderr, "cannot fetch eglSwapBuffers\n");
    return 2;
  }
  for (int frame = 0; frame < memframe::targets::kEglFrames; ++frame) swap(display, surface);
  eglMakeCurrent(display, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
  eglDestroyContext(display, context);
  eglDestroySurface(display, surface);
  eglTerminate(display);
  std::printf("egl presented %d frames\n", memframe::targets::kEglFrames);
  return 0;
}
