// Frames found in programs that present the way real games do. Runs under
// Xvfb with Mesa's software renderer.
#include <gtest/gtest.h>

#include <string>

#include "agent_harness.h"
#include "host_truth.h"
#include "memframe/format.h"

namespace memframe::testing {
namespace {

using memframe::targets::kSdlFrames;

std::string Target(const char* name) { return std::string(MEMFRAME_TARGETS_DIR) + "/target_" + name; }

TEST(AgentFrames, SdlSwapWindowEndsOneFramePerPresentThoughItNestsGlx) {
  AgentRun run = RunWithAgent({Target("sdl2_game"), "--swap", "sdl"});
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  EXPECT_EQ(CountFrameEnds(s, "SDL_GL_SwapWindow"), static_cast<uint64_t>(kSdlFrames));
  // SDL calls glXSwapBuffers through a pointer it fetched with dlsym: that
  // pointer is the agent's hook, but the nested present ends no frame.
  EXPECT_EQ(CountFrameEnds(s, "glXSwapBuffers"), 0u);
  // Time slices (fallback frames) stop at the first present.
  bool presented = false;
  for (const DecodedEvent& e : s.events) {
    if (wire::KindOf(e.kind) != wire::EVENT_FRAME_END) continue;
    const std::string& name = s.markers.at(static_cast<uint32_t>(e.address));
    if (name == "SDL_GL_SwapWindow") presented = true;
    EXPECT_FALSE(presented && name == "time slice") << "a time slice after the first present";
  }
}

TEST(AgentFrames, SwapFetchedThroughDlsymAndGetProcAddressIsFound) {
  AgentRun run = RunWithAgent({Target("sdl2_game"), "--swap", "glx"});
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], "glXSwapBuffers"), static_cast<uint64_t>(kSdlFrames));
}

class Sdl2WithoutGl : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(Sdl2WithoutGl, PresentEndsEachFrame) {
  AgentRun run = RunWithAgent({Target("sdl2_game"), "--swap", GetParam().first});
  ASSERT_EQ(run.exit_code, 0) << run.standard_error;
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], GetParam().second), static_cast<uint64_t>(kSdlFrames));
}

INSTANTIATE_TEST_SUITE_P(Presents, Sdl2WithoutGl,
                         ::testing::Values(std::make_pair("render", "SDL_RenderPresent"),
                                           std::make_pair("surface", "SDL_UpdateWindowSurface")));

TEST(AgentFrames, ChosenFrameSourceEndsFramesEvenWhenNested) {
  AgentRun run = RunWithAgent({Target("sdl2_game"), "--swap", "sdl"},
                              {.environment = {{"MEMFRAME_FRAME_SOURCE", "glXSwapBuffers"}}});
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], "glXSwapBuffers"), static_cast<uint64_t>(kSdlFrames));
  EXPECT_EQ(CountFrameEnds(run.streams[0], "SDL_GL_SwapWindow"), 0u);
}

TEST(AgentFrames, SlicesOnlyIgnoresPresents) {
  AgentRun run = RunWithAgent({Target("sdl2_game"), "--swap", "sdl"},
                              {.environment = {{"MEMFRAME_FRAME_SOURCE", "slices"}, {"MEMFRAME_TIME_SLICE_MS", "5"}}});
  ASSERT_EQ(run.exit_code, 0);
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], "SDL_GL_SwapWindow"), 0u);
  EXPECT_GT(CountFrameEnds(run.streams[0], "time slice"), 0u);
}

TEST(AgentFrames, OutputIsUnchanged) {
  AgentRun native = RunWithAgent({Target("sdl2_game"), "--swap", "sdl"}, {.preload = false});
  AgentRun profiled = RunWithAgent({Target("sdl2_game"), "--swap", "sdl"});
  EXPECT_EQ(native.exit_code, 0);
  EXPECT_EQ(profiled.standard_output, native.standard_output);
}

#ifdef MEMFRAME_HAVE_EGL_GAME
class EglFrames : public ::testing::TestWithParam<const char*> {};

TEST_P(EglFrames, EglSwapFetchedByNameEndsEachFrame) {
  AgentRun run = RunWithAgent({Target("egl_game"), GetParam()});
  ASSERT_EQ(run.exit_code, 0) << run.standard_error;
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], "eglSwapBuffers"), static_cast<uint64_t>(memframe::targets::kEglFrames));
}

INSTANTIATE_TEST_SUITE_P(Lookups, EglFrames, ::testing::Values("proc", "dlsym"));
#endif

#ifdef MEMFRAME_HAVE_SDL12_GAME
TEST(AgentFrames, Sdl12SoftwareFlipEndsEachFrame) {
  AgentRun run = RunWithAgent({Target("sdl12_game"), "flip"});
  ASSERT_EQ(run.exit_code, 0) << run.standard_error;
  ASSERT_EQ(run.streams.size(), 1u);
  // SDL_Flip calls SDL_UpdateRect inside: one frame per flip.
  EXPECT_EQ(CountFrameEnds(run.streams[0], "SDL_Flip"), static_cast<uint64_t>(memframe::targets::kSdl12Frames));
  EXPECT_EQ(CountFrameEnds(run.streams[0], "SDL_UpdateRect"), 0u);
}

TEST(AgentFrames, Sdl12GlSwapBuffersEndsEachFrame) {
  AgentRun run = RunWithAgent({Target("sdl12_game"), "gl"});
  ASSERT_EQ(run.exit_code, 0) << run.standard_error;
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], "SDL_GL_SwapBuffers"), static_cast<uint64_t>(memframe::targets::kSdl12Frames));
}

TEST(AgentFrames, Sdl12UpdateRectEndsEachFrame) {
  AgentRun run = RunWithAgent({Target("sdl12_game"), "rect"});
  ASSERT_EQ(run.exit_code, 0) << run.standard_error;
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], "SDL_UpdateRect"), static_cast<uint64_t>(memframe::targets::kSdl12Frames));
}
#endif

#ifdef MEMFRAME_HAVE_VULKAN_GAME
TEST(AgentFrames, VulkanPresentFetchedWithGetDeviceProcAddrEndsEachFrame) {
  AgentRun run = RunWithAgent({Target("vulkan_game")},
                              {.environment = {{"VK_ICD_FILENAMES", "/usr/share/vulkan/icd.d/lvp_icd.x86_64.json"}}});
  ASSERT_EQ(run.exit_code, 0) << run.standard_error;
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], "vkQueuePresentKHR"),
            static_cast<uint64_t>(memframe::targets::kVulkanFrames));
}
#endif

}  // namespace
}  // namespace memframe::testing
