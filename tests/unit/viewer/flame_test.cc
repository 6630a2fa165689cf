#include "flame.h"

#include <gtest/gtest.h>

#include <map>

namespace memframe::viewer {
namespace {

// Innermost first, from the user frame out: the level's arrays from
// LoadLevel (two lines), the nav mesh from LoadNavMesh called by LoadLevel,
// and a HUD string; a driver allocating inside the present names its module.
std::map<uint32_t, std::vector<TreeFrame>> FlameStacks() {
  return {{1, {{"LoadLevel", "level.cpp:24"}, {"main", "main.cpp:119"}}},
          {2, {{"LoadLevel", "level.cpp:29"}, {"main", "main.cpp:119"}}},
          {3, {{"LoadNavMesh", "level.cpp:14"}, {"LoadLevel", "level.cpp:40"}, {"main", "main.cpp:119"}}},
          {4, {{"BuildHudText", "hud.cpp:22"}, {"main", "main.cpp:134"}}},
          {5, {{"libfake_dri.so (driver)", ""}, {"PresentFrame", "driver_game.cc:26"}, {"main", "main.cpp:140"}}}};
}

std::vector<FlameRow> FlameRows() {
  return {{1, 1, 16384}, {3, 1, 12288}, {2, 1, 4096}, {5, 3, 1536}, {4, 1, 41}};
}

CallTree::StackFrames Frames() {
  static const auto stacks = FlameStacks();
  return [](uint32_t id) { return stacks.at(id); };
}

const CallTreeNode* Child(const CallTree& tree, const CallTreeNode& parent, const std::string& function) {
  for (uint32_t c : parent.children)
    if (tree.node(c).function == function) return &tree.node(c);
  return nullptr;
}

TEST(Flame, RootAndEveryLevelSumTheSelection) {
  CallTree tree = BuildFlameTree(FlameRows(), Frames());
  EXPECT_EQ(tree.root().blocks_b, 7u);
  EXPECT_EQ(tree.root().bytes_b, 16384u + 12288u + 4096u + 1536u + 41u);
  EXPECT_EQ(FlameValue(tree.root(), FlameMetric::kAllocations), 7u);
  EXPECT_EQ(FlameValue(tree.root(), FlameMetric::kBytes), tree.root().bytes_b);
  // Top-down: main is the one root; LoadLevel holds its own two lines and the nav mesh.
  ASSERT_EQ(tree.root().children.size(), 1u);
  const CallTreeNode& main = tree.node(tree.root().children[0]);
  EXPECT_EQ(main.function, "main");
  EXPECT_EQ(main.location, "main.cpp");  // three lines of main: one box
  EXPECT_EQ(main.bytes_b, tree.root().bytes_b);
  const CallTreeNode* load = Child(tree, main, "LoadLevel");
  ASSERT_NE(load, nullptr);
  EXPECT_EQ(load->bytes_b, 16384u + 12288u + 4096u);
  EXPECT_EQ(load->blocks_b, 3u);
  const CallTreeNode* nav = Child(tree, *load, "LoadNavMesh");
  ASSERT_NE(nav, nullptr);
  EXPECT_EQ(nav->bytes_b, 12288u);
  // Children by bytes: the level before the driver before the HUD.
  EXPECT_EQ(tree.node(main.children[0]).function, "LoadLevel");
  EXPECT_EQ(tree.node(main.children.back()).function, "BuildHudText");
}

TEST(Flame, CallersAndCalleesOfAFunction) {
  CallersCallees load = FindCallersCallees(FlameRows(), Frames(), "LoadLevel");
  EXPECT_EQ(load.blocks, 3u);
  EXPECT_EQ(load.bytes, 16384u + 12288u + 4096u);
  ASSERT_EQ(load.callers.size(), 1u);
  EXPECT_EQ(load.callers[0].function, "main");
  EXPECT_EQ(load.callers[0].bytes, load.bytes);
  // Its own two lines are "(self)", then the nav mesh.
  ASSERT_EQ(load.callees.size(), 2u);
  EXPECT_EQ(load.callees[0].function, "(self)");
  EXPECT_EQ(load.callees[0].bytes, 16384u + 4096u);
  EXPECT_EQ(load.callees[0].blocks, 2u);
  EXPECT_EQ(load.callees[1].function, "LoadNavMesh");
  EXPECT_EQ(load.callees[1].bytes, 12288u);

  CallersCallees main = FindCallersCallees(FlameRows(), Frames(), "main");
  ASSERT_EQ(main.callers.size(), 1u);
  EXPECT_EQ(main.callers[0].function, "(outermost)");
  EXPECT_EQ(main.callees.size(), 3u);

  CallersCallees present = FindCallersCallees(FlameRows(), Frames(), "PresentFrame");
  ASSERT_EQ(present.callees.size(), 1u);
  EXPECT_EQ(present.callees[0].function, "libfake_dri.so (driver)");
  EXPECT_EQ(present.callees[0].blocks, 3u);

  EXPECT_EQ(FindCallersCallees(FlameRows(), Frames(), "Nobody").blocks, 0u);
}

TEST(Flame, RecursionCountsAStackOnce) {
  std::map<uint32_t, std::vector<TreeFrame>> stacks = {
      {1, {{"Walk", "tree.cpp:9"}, {"Walk", "tree.cpp:12"}, {"main", "main.cpp:3"}}}};
  CallersCallees walk =
      FindCallersCallees({{1, 2, 64}}, [&](uint32_t id) { return stacks.at(id); }, "Walk");
  EXPECT_EQ(walk.blocks, 2u);
  EXPECT_EQ(walk.bytes, 64u);
  ASSERT_EQ(walk.callers.size(), 1u);
  EXPECT_EQ(walk.callers[0].function, "main");
}

TEST(Flame, ResolvesAFunctionByNameOrPart) {
  CallTree tree = BuildFlameTree(FlameRows(), Frames());
  EXPECT_EQ(ResolveFlameFunction(tree, FlameMetric::kBytes, "LoadLevel"), "LoadLevel");
  // "Load" is in LoadLevel and LoadNavMesh: the larger one.
  EXPECT_EQ(ResolveFlameFunction(tree, FlameMetric::kBytes, "Load"), "LoadLevel");
  EXPECT_EQ(ResolveFlameFunction(tree, FlameMetric::kBytes, "Nope"), "");
  EXPECT_EQ(ResolveFlameFunction(tree, FlameMetric::kBytes, ""), "");
}

TEST(Flame, LiveRowsSumTheBlocksOfEachStack) {
  analysis::LiveSet live;
  auto alloc = [&](uint64_t address, uint64_t size, uint32_t stack) {
    analysis::Event e;
    e.address = address;
    e.size = size;
    e.stack_id = stack;
    live.Alloc(e, nullptr);
  };
  alloc(0x1000, 100, 7);
  alloc(0x2000, 50, 7);
  alloc(0x3000, 400, 9);
  std::vector<FlameRow> rows = FlameRowsLive(live);
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].stack_id, 9u);
  EXPECT_EQ(rows[0].bytes, 400u);
  EXPECT_EQ(rows[1].stack_id, 7u);
  EXPECT_EQ(rows[1].blocks, 2u);
  EXPECT_EQ(rows[1].bytes, 150u);
}

TEST(Flame, MetricNames) {
  for (FlameMetric m : {FlameMetric::kAllocations, FlameMetric::kBytes, FlameMetric::kLiveBytes})
    EXPECT_EQ(ParseFlameMetric(FlameMetricName(m)), m);
  EXPECT_FALSE(ParseFlameMetric("heap"));
}

}  // namespace
}  // namespace memframe::viewer
