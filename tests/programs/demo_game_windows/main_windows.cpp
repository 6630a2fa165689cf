// memframe_demo_game.exe: the demo game for Windows, with a Win32 window and
// a WGL context instead of GLFW. The same options, phases and figures
// (game_loop.h, demo_truth.h): one SwapBuffers per frame, which is where
// memframe closes it. Links nothing of memframe.
//
//   memframe_demo_game.exe [--frames N] [--quiet] [--frame-times] [--particle-trail]
//                          [--wait-before-gameplay-frame K]... [--frame-log FILE]
#include <windows.h>

#include <cstdio>

#include "game_loop.h"
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

class Win32Window final : public GameWindow {
 public:
  explicit Win32Window(const Window& window) : window_(window) {}

  // The one SwapBuffers of the frame, then the window's messages.
  void EndFrame() override {
    SwapBuffers(window_.dc);
    MSG message;
    while (PeekMessageW(&message, nullptr, 0, 0, PM_REMOVE)) {
      TranslateMessage(&message);
      DispatchMessageW(&message);
    }
  }
  // Closing it destroys it (DefWindowProc's WM_CLOSE).
  bool ShouldClose() override { return !IsWindow(window_.hwnd); }

 private:
  const Window& window_;
};

}  // namespace
}  // namespace memframe::demo

int main(int argc, char** argv) {
  using namespace memframe::demo;
  Options options;
  if (!ParseOptions(argc, argv, options)) return 2;
  Window window;
  if (!OpenWindow(window)) {
    std::fprintf(stderr, "memframe_demo_game: cannot open a %dx%d OpenGL window\n", kWindowWidth, kWindowHeight);
    CloseWindow(window);
    return 1;
  }
  Win32Window game_window(window);
  const int frames_rendered = RunGame(game_window, options);
  CloseWindow(window);
  if (!options.quiet) PrintFramesRendered(frames_rendered);
  return 0;
}
