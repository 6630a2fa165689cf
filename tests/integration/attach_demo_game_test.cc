// memframe attach on the demo game: the game waits before a known gameplay
// frame (--wait-before-gameplay-frame), memframe attaches meanwhile, and
// from there on every frame's figures of the game's own code match
// demo_truth.h exactly, counting only the blocks made after the attach;
// the game then finishes with its own output and status, as without
// memframe. The attached run is followed live (the viewer's client) and
// marked with `memframe mark`, and the viewer's header says where the
// capture starts and how many frees of older blocks it set apart.
#include <fcntl.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "demo_truth.h"
#include "e2e_helpers.h"
#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/live_follow.h"

namespace memframe::demo {
namespace {

using e2e::ParseJsonOrDiscard;
using e2e::RunCommand;

constexpr int kGameplayFrames = 120;
constexpr int kAttachBefore = 60;  // after the first labels expire: the frees of older blocks are counted apart

TEST(AttachDemoGame, FramesFromTheAttachOnMatchTheTruth) {
  e2e::ScratchDirectory dir("memframe-attach-demo");
  const std::string capture = (dir.path() / "attached.mfc").string();
  e2e::Child game = e2e::Child::Start({MEMFRAME_DEMO_GAME_PATH, "--frames", std::to_string(kGameplayFrames),
                             "--wait-before-gameplay-frame", std::to_string(kAttachBefore)},
                            STDOUT_FILENO);
  ASSERT_GT(game.pid, 0);
  ASSERT_EQ(game.ReadLine(), "memframe_demo_game: waiting before gameplay frame " + std::to_string(kAttachBefore));
  e2e::Child attach = e2e::Child::Start({MEMFRAME_CLI_PATH, "attach", "--no-summary", "-o", capture, std::to_string(game.pid)},
                              STDERR_FILENO);
  const std::string live_prefix = "memframe: live view: memframe-viewer --follow ";
  std::string said, line, socket;
  while (!(line = attach.ReadLine()).empty() && line.rfind("memframe: recording", 0) != 0) {
    said += line + "\n";
    if (line.rfind(live_prefix, 0) == 0) socket = line.substr(live_prefix.size());
  }
  ASSERT_FALSE(line.empty()) << "memframe attach stopped before recording:\n" << said;
  ASSERT_FALSE(socket.empty()) << "memframe attach offered no live view:\n" << said;

  // Followed live and marked while the game still waits: the mark falls in
  // the capture's frame 0, gameplay frame kAttachBefore.
  std::string error;
  auto follower = analysis::LiveFollower::Start(socket, &error);
  ASSERT_TRUE(follower) << error;
  EXPECT_EQ(follower->capture_path(), capture);
  e2e::CommandResult mark = RunCommand({MEMFRAME_CLI_PATH, "mark", socket, "attached"}, 60);
  EXPECT_EQ(mark.exit_code, 0);
  analysis::Capture so_far;
  ASSERT_TRUE(follower->Build(&so_far, &error)) << error;
  EXPECT_TRUE(so_far.main.process.attached);

  fputs("go\n", game.to);
  fflush(game.to);
  EXPECT_EQ(game.ReadLine(), "memframe_demo_game: rendered " + std::to_string(TotalFrames(kGameplayFrames)) +
                                 " frames (30 title, 1 load, " + std::to_string(kGameplayFrames) +
                                 " gameplay, 1 unload)");
  EXPECT_EQ(game.Wait(), 0);
  while (!(line = attach.ReadLine()).empty()) said += line + "\n";
  ASSERT_EQ(attach.Wait(), 0) << said;

  // Swaps from gameplay frame kAttachBefore on, and the unload frame's.
  e2e::CommandResult summary = RunCommand({MEMFRAME_CLI_PATH, "report", capture, "--json"}, 120);
  ASSERT_EQ(summary.exit_code, 0);
  nlohmann::json s = ParseJsonOrDiscard(summary.standard_output);
  ASSERT_FALSE(s.is_discarded()) << summary.standard_output;
  EXPECT_EQ(s["frames"], kGameplayFrames - kAttachBefore + 1);
  EXPECT_EQ(s["capture"]["attached"], true);
  EXPECT_EQ(s["unknown_frees"], 0);
  // Labels, projectiles and the level, all made before the attach and
  // freed after it, at the least.
  EXPECT_GE(s["freed_before_attach"].get<int>(),
            LabelsAlive(kAttachBefore - 1) + ProjectilesAlive(kAttachBefore - 1) + kLevelBlocks - kLeakedBlocks);

  e2e::CommandResult frames = RunCommand({MEMFRAME_CLI_PATH, "report", capture, "frames", "--json"}, 120);
  ASSERT_EQ(frames.exit_code, 0);
  nlohmann::json f = ParseJsonOrDiscard(frames.standard_output);
  ASSERT_FALSE(f.is_discarded()) << frames.standard_output;
  const nlohmann::json& per_frame = f["frames"];
  ASSERT_GE(per_frame.size(), static_cast<size_t>(kGameplayFrames - kAttachBefore + 1));
  for (int g = kAttachBefore; g < kGameplayFrames; ++g) {
    SCOPED_TRACE("gameplay frame " + std::to_string(g));
    const nlohmann::json& frame = per_frame[g - kAttachBefore];
    ASSERT_EQ(frame["frame"], g - kAttachBefore);
    const nlohmann::json game_class = frame["classes"].value("game", nlohmann::json::object());
    EXPECT_EQ(game_class.value("allocations", -1), GameAllocations(g));
    EXPECT_EQ(game_class.value("bytes_allocated", uint64_t{0}), GameBytesAllocated(g));
    EXPECT_EQ(game_class.value("frees", -1), GameFrees(g, kAttachBefore));
    EXPECT_EQ(game_class.value("live_bytes", uint64_t{0}), GameplayLiveBytes(g, kAttachBefore));
  }
  // The unload frame frees what is left of the blocks made after the attach.
  const nlohmann::json unload = per_frame[kGameplayFrames - kAttachBefore]["classes"]["game"];
  EXPECT_EQ(unload.value("allocations", -1), 0);
  EXPECT_EQ(unload.value("frees", -1), LabelsAlive(kGameplayFrames - 1, kAttachBefore) +
                                           ProjectilesAlive(kGameplayFrames - 1, kAttachBefore));
  EXPECT_EQ(unload.value("live_bytes", uint64_t{1}), 0u);

  // The follower's last model is the finished file's.
  for (int i = 0; i < 3000 && !follower->status().ended; ++i) usleep(10 * 1000);
  ASSERT_TRUE(follower->status().ended);
  analysis::Capture followed, loaded;
  ASSERT_TRUE(follower->Build(&followed, &error)) << error;
  ASSERT_TRUE(analysis::LoadCapture(capture, &loaded, &error)) << error;
  EXPECT_EQ(followed.main.events.size(), loaded.main.events.size());
  ASSERT_EQ(loaded.recorder.snapshots.size(), 1u);
  EXPECT_EQ(loaded.recorder.snapshots[0].name, "attached");

  // The viewer's header: where the capture starts, and the frees it set apart.
  e2e::CommandResult view =
      RunCommand({MEMFRAME_VIEWER_PATH, capture, "--dump-view-data", "timeline"}, 120);
  ASSERT_EQ(view.exit_code, 0);
  nlohmann::json v = ParseJsonOrDiscard(view.standard_output);
  ASSERT_FALSE(v.is_discarded()) << view.standard_output;
  EXPECT_EQ(v["header"]["attach"].get<std::string>().rfind("recording starts at an attach", 0), 0u) << v["header"];
  EXPECT_EQ(v["header"]["freed_before_attach"], s["freed_before_attach"]);
  bool marked = false;
  for (const nlohmann::json& marker : v.value("markers", nlohmann::json::array()))
    marked |= marker.value("name", "") == "attached" && marker.value("frame", -1) == 0;
  EXPECT_TRUE(marked) << v.value("markers", nlohmann::json::array());
}

}  // namespace
}  // namespace memframe::demo
