// memframe_demo_game.exe: the demo game for Windows, with a Win32 window and
// a WGL context instead of GLFW. Same phases, same figures (demo_truth.h),
// the same level, entities and HUD code; one SwapBuffers per frame, which
// is where memframe closes it. Links nothing of memframe.
//
//   memframe_demo_game.exe [--frames N] [--quiet]
#include <windows.h>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include "demo_truth.h"
#include "entities.h"
#include "hud.h"
#include "level.h"
#include "render.h"

namespace memframe::demo {
namespace {

struct Window {
  HWND hwnd = nullptr;
  HDC dc = nullptr;
  HGLRC gl = nullptr;
};

LRESULT CALLBACK WindowProc(HWND hwnd, UINT message, WPARAM w, LPARAM l) {
  return DefWindowProcW(hwnd, message, w, l);
}

bool OpenWindow(Window& window) {
  HINSTANCE instance = GetModuleHandleW(nullptr);
  WNDCLASSW cls{};
  cls.style = CS_OWNDC;
  cls.lpfnWndProc = WindowProc;
  cls.hInstance = instance;
  cls.lpszClassName = L"memframe_demo_game";
  if (!RegisterClassW(&cls)) return false;
  RECT rect{0, 0, kWindowWidth, kWindowHeight};
  AdjustWindowRect(&rect, WS_OVERLAPPEDWINDOW, FALSE);
  window.hwnd = CreateWindowW(cls.lpszClassName, L"memframe demo game", WS_OVERLAPPEDWINDOW | WS_VISIBLE, 0, 0,
                              rect.right - rect.left, rect.bottom - rect.top, nullptr, nullptr, instance, nullptr);
  if (!window.hwnd) return false;
  window.dc = GetDC(window.hwnd);
  PIXELFORMATDESCRIPTOR format{};
  format.nSize = sizeof(format);
  format.nVersion = 1;
  format.dwFlags = PFD_DRAW_TO_WINDOW | PFD_SUPPORT_OPENGL | PFD_DOUBLEBUFFER;
  format.iPixelType = PFD_TYPE_RGBA;
  format.cColorBits = 24;
  format.cDepthBits = 24;
  int chosen = ChoosePixelFormat(window.dc, &format);
  if (!chosen || !SetPixelFormat(window.dc, chosen, &format)) return false;
  window.gl = wglCreateContext(window.dc);
  return window.gl && wglMakeCurrent(window.dc, window.gl);
}

void CloseWindow(Window& window) {
  wglMakeCurrent(nullptr, nullptr);
  if (window.gl) wglDeleteContext(window.gl);
  if (window.dc) ReleaseDC(window.hwnd, window.dc);
  if (window.hwnd) DestroyWindow(window.hwnd);
}

// The one SwapBuffers of the frame, then the window's messages.
void EndFrame(const Window& window, int& frames_rendered) {
  SwapBuffers(window.dc);
  MSG message;
  while (PeekMessageW(&message, nullptr, 0, 0, PM_REMOVE)) {
    TranslateMessage(&message);
    DispatchMessageW(&message);
  }
  ++frames_rendered;
}

int RunGame(const Window& window, int gameplay_frames) {
  int frames_rendered = 0;
  SetUpProjection();
  for (int title_frame = 0; title_frame < kTitleFrames; ++title_frame) {
    DrawTitleScreen(title_frame);
    EndFrame(window, frames_rendered);
  }
  DrawLoadingScreen();
  Level level = LoadLevel();
  EndFrame(window, frames_rendered);
  Entities entities;
  for (int gameplay_frame = 0; gameplay_frame < gameplay_frames; ++gameplay_frame) {
    UpdateGameplay(entities, gameplay_frame);
    {
      // Scoped so the string is freed before the swap, in the frame that built it.
      const std::string hud_text = BuildHudText(entities, gameplay_frame);
      DrawGameplay(entities, hud_text);
    }
    EndFrame(window, frames_rendered);
  }
  DestroyAllEntities(entities);
  UnloadLevel(level);
  DrawUnloadScreen();
  EndFrame(window, frames_rendered);
  return frames_rendered;
}

}  // namespace
}  // namespace memframe::demo

int main(int argc, char** argv) {
  using namespace memframe::demo;
  int gameplay_frames = kDefaultGameplayFrames;
  bool quiet = false;
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quiet") == 0) {
      quiet = true;
    } else if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      char* end = nullptr;
      errno = 0;
      long value = std::strtol(argv[++i], &end, 10);
      if (errno != 0 || *end != '\0' || value < 0 || value > 1'000'000) {
        std::fprintf(stderr, "memframe_demo_game: --frames needs a number in 0..1000000, got '%s'\n", argv[i]);
        return 2;
      }
      gameplay_frames = static_cast<int>(value);
    } else {
      std::fprintf(stderr, "usage: memframe_demo_game.exe [--frames N] [--quiet]\n");
      return 2;
    }
  }
  Window window;
  if (!OpenWindow(window)) {
    std::fprintf(stderr, "memframe_demo_game: cannot open a %dx%d OpenGL window\n", kWindowWidth, kWindowHeight);
    CloseWindow(window);
    return 1;
  }
  const int frames_rendered = RunGame(window, gameplay_frames);
  CloseWindow(window);
  if (!quiet) {
    std::printf("memframe_demo_game: rendered %d frames (%d title, 1 load, %d gameplay, 1 unload)\n", frames_rendered,
                kTitleFrames, frames_rendered - TotalFrames(0));
  }
  return 0;
}
