// memframe_phases_game: a game in parts (start-up, menu, world map, level
// intro, gameplay, back to the map), each allocating at its own rate, with
// loads, an unload and one-frame transients, all deterministic. It links
// nothing of memframe; phases_truth.h says what a capture must show.
//
//   memframe_phases_game
#include <GLFW/glfw3.h>

#include <cstdio>
#include <cstdlib>

#include "engine.h"
#include "phases_truth.h"

namespace memframe::phases_game {
namespace {

// Allocation sites must stay frames of their own: noinline, and the blocks
// go through a volatile sink so nothing is optimized away.
void* volatile g_sink;

void* Keep(void* p) {
  g_sink = p;
  return p;
}

void* g_scratch[kMapAllocations];

void FreeScratch(int count) {
  for (int i = 0; i < count; ++i) std::free(g_scratch[i]);
}

// Each tick allocates itself, so that its call site is named after it: `count`
// blocks made and freed in the frame.
__attribute__((noinline)) void MenuTick() {
  for (int i = 0; i < kMenuAllocations; ++i) g_scratch[i] = Keep(std::malloc(kMenuBlockBytes));
  FreeScratch(kMenuAllocations);
}
__attribute__((noinline)) void MapTick() {
  for (int i = 0; i < kMapAllocations; ++i) g_scratch[i] = Keep(std::malloc(kMapBlockBytes));
  FreeScratch(kMapAllocations);
}
__attribute__((noinline)) void IntroTick() {
  for (int i = 0; i < kIntroAllocations; ++i) g_scratch[i] = Keep(std::malloc(kIntroBlockBytes));
  FreeScratch(kIntroAllocations);
}
__attribute__((noinline)) int GameplayTick(int frame) {
  for (int i = 0; i < kGameplayOwnAllocations; ++i) g_scratch[i] = Keep(std::malloc(kGameplayBlockBytes));
  FreeScratch(kGameplayOwnAllocations);
  return engine_find_path(frame);
}

// A frame's transient: a large buffer made and dropped in the frame.
__attribute__((noinline)) void FlashMenuBanner() { std::free(Keep(std::malloc(kTransientBytes))); }
__attribute__((noinline)) void BuildShadowMap() { std::free(Keep(std::malloc(kTransientBytes))); }

struct Assets {
  void* blocks[kStartupBlocks] = {};
  int count = 0;
};

__attribute__((noinline)) void LoadAssets(Assets& assets, int blocks) {
  for (int i = 0; i < blocks; ++i) assets.blocks[assets.count++] = Keep(std::malloc(kAssetBlockBytes));
}
void FreeAssets(Assets& assets) {
  while (assets.count > 0) std::free(assets.blocks[--assets.count]);
}
__attribute__((noinline)) void LoadStartupAssets(Assets& assets) { LoadAssets(assets, kStartupBlocks); }
__attribute__((noinline)) void LoadWorldMap(Assets& assets) { LoadAssets(assets, kWorldMapBlocks); }
__attribute__((noinline)) void LoadLevel(Assets& assets) { LoadAssets(assets, kLevelBlocks); }
__attribute__((noinline)) void UnloadLevel(Assets& assets) { FreeAssets(assets); }

void Present(GLFWwindow* window) {
  glClear(GL_COLOR_BUFFER_BIT);
  glfwSwapBuffers(window);
  glfwPollEvents();
}

Assets g_startup, g_map, g_level;

int Run(GLFWwindow* window) {
  int frames = 0;
  auto frame = [&] {
    Present(window);
    ++frames;
  };
  LoadStartupAssets(g_startup);
  frame();  // frame 0 ends
  for (int m = 1; m <= kMenuFrames; ++m) {
    MenuTick();
    if (FlashesBanner(m)) FlashMenuBanner();
    frame();
  }
  LoadWorldMap(g_map);
  frame();
  for (int i = 0; i < kMapFrames; ++i) {
    MapTick();
    frame();
  }
  LoadLevel(g_level);
  frame();
  for (int i = 0; i < kIntroFrames; ++i) {
    IntroTick();
    frame();
  }
  int path = 0;
  for (int g = 1; g <= kGameplayFrames; ++g) {
    path += GameplayTick(g);
    if (BuildsShadowMap(g)) BuildShadowMap();
    frame();
  }
  UnloadLevel(g_level);
  frame();
  for (int i = 0; i < kMapAgainFrames; ++i) {
    MapTick();
    frame();
  }
  // After the last present: the teardown.
  FreeAssets(g_map);
  FreeAssets(g_startup);
  return path > 0 ? frames : -1;
}

}  // namespace
}  // namespace memframe::phases_game

int main() {
  using namespace memframe::phases_game;
  if (!glfwInit()) {
    std::fprintf(stderr, "memframe_phases_game: cannot initialise GLFW (is there a display?)\n");
    return 1;
  }
  glfwWindowHint(GLFW_RESIZABLE, GLFW_FALSE);
  GLFWwindow* window = glfwCreateWindow(320, 240, "memframe phases game", nullptr, nullptr);
  if (window == nullptr) {
    std::fprintf(stderr, "memframe_phases_game: cannot create an OpenGL window\n");
    glfwTerminate();
    return 1;
  }
  glfwMakeContextCurrent(window);
  glfwSwapInterval(0);  // never paced by a display (Xvfb has none)
  const int frames = Run(window);
  glfwDestroyWindow(window);
  glfwTerminate();
  std::printf("memframe_phases_game: %d frames rendered\n", frames);
  return frames == kFramesRendered ? 0 : 1;
}
