// An SDL 1.2 game. Software rendered, it never touches GL and presents with
// SDL_Flip (argv[1] == "flip") or SDL_UpdateRect (argv[1] == "rect"); with
// argv[1] == "gl" it opens an OpenGL video mode and calls SDL_GL_SwapBuffers.
#include <SDL/SDL.h>

#include <cstdio>
#include <cstring>

#include "host_truth.h"

int main(int argc, char** argv) {
  const char* mode = argc > 1 ? argv[1] : "flip";
  bool flip = strcmp(mode, "flip") == 0;
  bool gl = strcmp(mode, "gl") == 0;
  // SDL 1.2 sometimes fails to open the X display when the machine is busy
  // (11 of 60 runs with two spinning processes, without memframe), so the
  // game tries again before giving up, as a player would restart it.
  int attempts = 0;
  while (SDL_Init(SDL_INIT_VIDEO) != 0) {
    if (++attempts == 10) {
      std::fprintf(stderr, "SDL_Init: %s\n", SDL_GetError());
      return 2;
    }
    SDL_Delay(100);
  }
  SDL_Surface* screen = SDL_SetVideoMode(160, 120, 32, gl ? SDL_OPENGL : SDL_SWSURFACE);
  if (!screen) {
    std::fprintf(stderr, "SDL_SetVideoMode: %s\n", SDL_GetError());
    return 2;
  }
  for (int frame = 0; frame < memframe::targets::kSdl12Frames; ++frame) {
    if (gl) {
      SDL_GL_SwapBuffers();
      continue;
    }
    SDL_FillRect(screen, nullptr, SDL_MapRGB(screen->format, frame * 7, 40, 80));
    if (flip) {
      SDL_Flip(screen);
    } else {
      SDL_UpdateRect(screen, 0, 0, 0, 0);
    }
  }
  SDL_Quit();
  std::printf("sdl12 presented %d frames\n", memframe::targets::kSdl12Frames);
  return 0;
}
