// The demo game's live-memory series checked against demo_truth.h: one
// check for `memframe report frames --json` and the viewer's timeline
// (--dump-view-data), which carry the same per-class objects:
//   frames: [ { "frame": F, "classes": { "game": { "allocations", "frees",
//               "bytes_allocated", "bytes_freed", "live_bytes", "mapped_bytes" }, ... } } ]
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>

#include "demo_truth.h"

namespace memframe::demo {

inline void ExpectDemoGameSeries(const nlohmann::json& frames, int gameplay_frames) {
  std::map<uint64_t, nlohmann::json> game;  // frame -> the game class's figures
  for (const nlohmann::json& f : frames) {
    ASSERT_TRUE(f.contains("classes")) << f.dump();
    game[f["frame"].get<uint64_t>()] = f["classes"].value("game", nlohmann::json::object());
  }
  ASSERT_EQ(game.count(LoadFrame() - 1), 1u);
  ASSERT_EQ(game.count(LoadFrame()), 1u);
  // Title frames after frame 0: the game's own code allocates nothing.
  for (int f = 1; f < kTitleFrames; ++f) EXPECT_EQ(game[f].value("allocations", -1), 0) << "frame " << f;
  const uint64_t before_load = game[LoadFrame() - 1].value("live_bytes", uint64_t{0});
  const nlohmann::json& load = game[LoadFrame()];
  EXPECT_EQ(load.value("allocations", -1), kLevelBlocks);
  EXPECT_EQ(load.value("bytes_allocated", uint64_t{0}), kLevelBytes);
  EXPECT_EQ(load.value("live_bytes", uint64_t{0}), before_load + kLevelBytes);
  for (int g = 0; g < gameplay_frames; ++g) {
    SCOPED_TRACE("gameplay frame " + std::to_string(g));
    const nlohmann::json& f = game[FirstGameplayFrame() + g];
    EXPECT_EQ(f.value("allocations", -1), GameAllocations(g));
    EXPECT_EQ(f.value("bytes_allocated", uint64_t{0}), GameBytesAllocated(g));
    EXPECT_EQ(f.value("frees", -1), GameFrees(g));
    EXPECT_EQ(f.value("live_bytes", uint64_t{0}), before_load + kLevelBytes + GameplayLiveBytes(g));
    EXPECT_EQ(f.value("mapped_bytes", uint64_t{1}), 0u);  // the game maps nothing itself
  }
  // The unload frame frees the level but the nav mesh, and every entity.
  EXPECT_EQ(game[UnloadFrame(gameplay_frames)].value("live_bytes", uint64_t{0}), before_load + kLeakedBytes);
}

}  // namespace memframe::demo
