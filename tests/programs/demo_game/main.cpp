// memframe_demo_game: a tiny, deterministic game used as memframe's
// reference target. It links nothing of memframe; its expected allocation
// figures live in demo_truth.h, which the integration tests share.
//
//   memframe_demo_game [--frames N] [--quiet]
//
// Phases, one glfwSwapBuffers per frame: title screen, level load, N
// gameplay frames, level unload, exit (frame numbers in demo_truth.h).
#include <GLFW/glfw3.h>

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

constexpr long kMaxGameplayFrames = 1'000'000;

struct Options {
  int gameplay_frames = kDefaultGameplayFrames;
  bool quiet = false;
};

void PrintUsage(std::FILE* stream) {
  std::fprintf(stream,
               "usage: memframe_demo_game [--frames N] [--quiet]\n"
               "  --frames N  gameplay frames, 0..%ld (default %d)\n"
               "  --quiet     print nothing on success\n",
               kMaxGameplayFrames, kDefaultGameplayFrames);
}

// Returns false (after saying why on stderr) on bad usage.
bool ParseOptions(int argc, char** argv, Options& options) {
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--quiet") == 0) {
      options.quiet = true;
    } else if (std::strcmp(argv[i], "--frames") == 0 && i + 1 < argc) {
      const char* text = argv[++i];
      char* end = nullptr;
      errno = 0;
      const long value = std::strtol(text, &end, 10);
      if (errno != 0 || end == text || *end != '\0' || value < 0 || value > kMaxGameplayFrames) {
        std::fprintf(stderr, "memframe_demo_game: --frames needs a number in 0..%ld, got '%s'\n",
                     kMaxGameplayFrames, text);
        return false;
      }
      options.gameplay_frames = static_cast<int>(value);
    } else {
      std::fprintf(stderr, "memframe_demo_game: unexpected argument '%s'\n", argv[i]);
      PrintUsage(stderr);
      return false;
    }
  }
  return true;
}

void ReportGlfwError(int code, const char* description) {
  std::fprintf(stderr, "memframe_demo_game: GLFW error %d: %s\n", code, description);
}

// Presents the frame: the one glfwSwapBuffers call of the frame, which is
// where memframe closes it.
void EndFrame(GLFWwindow* window, int& frames_rendered) {
  glfwSwapBuffers(window);
  glfwPollEvents();
  ++frames_rendered;
}

// Runs every phase; returns the number of frames rendered.
int RunGame(GLFWwindow* window, const Options& options) {
  int frames_rendered = 0;
  SetUpProjection();

  for (int title_frame = 0; title_frame < kTitleFrames; ++title_frame) {
    DrawTitleScreen(title_frame);
    EndFrame(window, frames_rendered);
  }

  // Frame kTitleFrames: the whole level arrives in one frame.
  DrawLoadingScreen();
  Level level = LoadLevel();
  EndFrame(window, frames_rendered);

  // Closing the window is the one thing that can shorten a run (never in
  // tests); the level is still unloaded so the shutdown path stays the same.
  Entities entities;
  for (int gameplay_frame = 0;
       gameplay_frame < options.gameplay_frames && !glfwWindowShouldClose(window);
       ++gameplay_frame) {
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

  const int frames_rendered = RunGame(window, options);

  glfwDestroyWindow(window);
  glfwTerminate();

  if (!options.quiet) {
    const int gameplay_frames = frames_rendered - TotalFrames(0);
    std::printf("memframe_demo_game: rendered %d frames (%d title, 1 load, %d gameplay, 1 unload)\n",
                frames_rendered, kTitleFrames, gameplay_frames);
  }
  return 0;
}
