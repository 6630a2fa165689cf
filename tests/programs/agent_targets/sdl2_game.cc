// A small SDL2 program that presents one of four ways:
//   --swap render   SDL_RenderPresent of a software renderer (no GL)
//   --swap surface  SDL_UpdateWindowSurface of the window surface (no GL)
// or, with an OpenGL context:
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

// The two presents of SDL 2 without GL.
static int PresentWithoutGl(bool renderer) {
  SDL_Window* window = SDL_CreateWindow("memframe sdl2 target", 0, 0, 320, 200, 0);
  if (!window) return 2;
  SDL_Renderer* r = renderer ? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE) : nullptr;
  SDL_Surface* surface = renderer ? nullptr : SDL_GetWindowSurface(window);
  if (renderer ? !r : !surface) {
    std::fprintf(stderr, "no %s: %s\n", renderer ? "renderer" : "surface", SDL_GetError());
    return 2;
  }
  for (int frame = 0; frame < memframe::targets::kSdlFrames; ++frame) {
    if (renderer) {
      SDL_SetRenderDrawColor(r, static_cast<Uint8>(frame * 5), 40, 80, 255);
      SDL_RenderClear(r);
      SDL_RenderPresent(r);
    } else {
      SDL_FillRect(surface, nullptr, SDL_MapRGB(surface->format, static_cast<Uint8>(frame * 5), 40, 80));
      SDL_UpdateWindowSurface(window);
    }
  }
  if (r) SDL_DestroyRenderer(r);
  SDL_DestroyWindow(window);
  SDL_Quit();
  std::printf("sdl2_game presented %d frames\n", memframe::targets::kSdlFrames);
  return 0;
}

int main(int argc, char** argv) {
  const char* mode = argc > 2 && strcmp(argv[1], "--swap") == 0 ? argv[2] : "sdl";
  bool glx = strcmp(mode, "glx") == 0;
  if (SDL_Init(SDL_INIT_VIDEO) != 0) {
    std::fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
    return 2;
  }
  if (strcmp(mode, "render") == 0 || strcmp(mode, "surface") == 0) return PresentWithoutGl(mode[0] == 'r');
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
