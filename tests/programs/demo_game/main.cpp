// memframe_demo_game: a tiny, deterministic game used as memframe's
// reference target. It links nothing of memframe; its expected allocation
// figures live in demo_truth.h, which the integration tests share.
//
//   memframe_demo_game [--frames N] [--quiet] [--frame-times] [--particle-trail]
//                      [--wait-before-gameplay-frame K]... [--frame-log FILE]
//
// Phases, one glfwSwapBuffers per frame: title screen, level load, N
// gameplay frames, level unload, exit (frame numbers in demo_truth.h; the
// phases are game_loop.cpp's, which the Windows demo runs too).
#include <GLFW/glfw3.h>

#include <cstdio>

#include "game_loop.h"
#include "render.h"

namespace memframe::demo {
namespace {

void ReportGlfwError(int code, const char* description) {
  std::fprintf(stderr, "memframe_demo_game: GLFW error %d: %s\n", code, description);
}

class GlfwWindow final : public GameWindow {
 public:
  explicit GlfwWindow(GLFWwindow* window) : window_(window) {}

  // The one glfwSwapBuffers call of the frame, which is where memframe
  // closes it.
  void EndFrame() override {
    glfwSwapBuffers(window_);
    glfwPollEvents();
  }
  bool ShouldClose() override { return glfwWindowShouldClose(window_); }

 private:
  GLFWwindow* window_;
};

}  // namespace
}  // namespace memframe::demo

int main(int argc, char** argv) {
  using namespace memframe::demo;

  Options options;
  if (!ParseOptions(argc, argv, options)) return 2;

  glfwSetErrorCallback(ReportGlfwError);
  if (!glfwInit()) {
    std::fprintf(stderr, "memframe_demo_game: cannot initialise GLFW (is there a display?)\n");
    return 1;
  }
  glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(kWindowWidth, kWindowHeight, "memframe demo game", nullptr, nullptr);
  if (window == nullptr) {
    std::fprintf(stderr, "memframe_demo_game: cannot create a %dx%d OpenGL window\n", kWindowWidth,
                 kWindowHeight);
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  // Never wait for vblank: frames must not be paced by the display, and
  // under Xvfb there is none.
  glfwSwapInterval(0);

  GlfwWindow game_window(window);
  const int frames_rendered = RunGame(game_window, options);

  glfwDestroyWindow(window);
  glfwTerminate();

  if (!options.quiet) PrintFramesRendered(frames_rendered);
  return 0;
}
