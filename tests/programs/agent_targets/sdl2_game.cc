// A small SDL2 + OpenGL program that presents one of two ways:
//   --swap sdl   SDL_GL_SwapWindow (SDL then calls glXSwapBuffers through a
//                pointer it fetched with dlsym: presents nest)
//   --swap glx   the swap fetched the way SDL fetches it: dlopen libGL,
//                dlsym glXGetProcAddressARB, ask it for glXSwapBuffers, call
//                that pointer (no swap symbol is ever called by name)
// and renders kSdlFrames frames. Links no GL library itself.
#include <SDL2/SDL.h>
#include <SDL2/SDL_syswm.h>
#include <dlfcn.h>

#include <cstdio>
#include <cstring>

#include "host_truth.h"

int main(int argc, char** argv) {
  bool glx = argc > 2 && strcmp(argv[1], "--swap") == 0 && strcmp(argv[2], "glx") == 0;
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    std::fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
    return 2;
  }
  SDL_Window* window = SDL_CreateWindow("memframe sdl2 target", 0, 0, 320, 200, SDL_WINDOW_OPENGL);
  SDL_GLContext context = window ? SDL_GL_CreateContext(window) : nullptr;
  if (!context) {
    std::fprintf(stderr, "no GL context: %s\n", SDL_GetError());
    return 2;
  }
  using SwapFn = void (*)(void*, unsigned long);
  SwapFn swap = nullptr;
  SDL_SysWMinfo wm;
  SDL_VERSION(&wm.version);
  if (glx) {
    void* gl = dlopen("libGL.so.1", RTLD_NOW | RTLD_GLOBAL);
    auto get_proc = reinterpret_cast<void* (*)(const unsigned char*)>(gl ? dlsym(gl, "glXGetProcAddressARB") : nullptr);
    swap = get_proc ? reinterpret_cast<SwapFn>(get_proc(reinterpret_cast<const unsigned char*>("glXSwapBuffers")))
                    : nullptr;
    if (!swap || !SDL_GetWindowWMInfo(window, &wm) || wm.subsystem != SDL_SYSWM_X11) {
      std::fprintf(stderr, "cannot fetch glXSwapBuffers through glXGetProcAddressARB\n");
      return 2;
    }
  }
  using ClearFn = void (*)(unsigned);
  auto clear = reinterpret_cast<ClearFn>(SDL_GL_GetProcAddress("glClear"));
  for (int frame = 0; frame < memframe::targets::kSdlFrames; ++frame) {
    if (clear) clear(0x4000);  // GL_COLOR_BUFFER_BIT
    if (glx) {
      swap(wm.info.x11.display, wm.info.x11.window);
    } else {
      SDL_GL_SwapWindow(window);
    }
  }
  SDL_GL_DeleteContext(context);
  SDL_DestroyWindow(window);
  SDL_Quit();
  std::printf("sdl2_game presented %d frames\n", memframe::targets::kSdlFrames);
  return 0;
}
