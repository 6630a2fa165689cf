#include "call_tree.h"

#include <gtest/gtest.h>

#include <map>

namespace memframe::viewer {
namespace {

using analysis::LiveSetDiffRow;
using Change = LiveSetDiffRow::Change;

LiveSetDiffRow Row(uint32_t stack, uint64_t blocks_a, uint64_t bytes_a, uint64_t blocks_b, uint64_t bytes_b,
                   Change change) {
  LiveSetDiffRow r;
  r.stack_id = stack;
  r.blocks_a = blocks_a;
  r.bytes_a = bytes_a;
  r.blocks_b = blocks_b;
  r.bytes_b = bytes_b;
  r.change = change;
  return r;
}

// Innermost first, from the user frame out: two level arrays from LoadLevel,
// one from LoadNavMesh called by LoadLevel, and a HUD string released.
std::map<uint32_t, std::vector<TreeFrame>> Stacks() {
  return {{1, {{"LoadLevel", "level.cpp:24"}, {"RunGame", "main.cpp:90"}, {"main", "main.cpp:142"}}},
          {2, {{"LoadLevel", "level.cpp:29"}, {"RunGame", "main.cpp:90"}, {"main", "main.cpp:142"}}},
          {3, {{"LoadNavMesh", "level.cpp:14"}, {"LoadLevel", "level.cpp:40"}, {"RunGame", "main.cpp:90"},
               {"main", "main.cpp:142"}}},
          {4, {{"BuildHudText", "hud.cpp:22"}, {"RunGame", "main.cpp:95"}, {"main", "main.cpp:142"}}}};
}

std::vector<LiveSetDiffRow> Rows() {
  return {Row(1, 0, 0, 1, 16384, Change::kNew), Row(3, 0, 0, 1, 12288, Change::kNew),
          Row(2, 0, 0, 1, 4096, Change::kNew), Row(4, 1, 41, 0, 0, Change::kGone)};
}

CallTree Build(CallTree::Order order) {
  auto stacks = Stacks();
  return CallTree::Build(Rows(), order, [&](uint32_t id) { return stacks.at(id); });
}

TEST(CallTree, RootHoldsTheTotalsOfEveryRow) {
  for (auto order : {CallTree::Order::kTopDown, CallTree::Order::kBottomUp}) {
    CallTree tree = Build(order);
    EXPECT_EQ(tree.root().bytes_a, 41u);
    EXPECT_EQ(tree.root().bytes_b, 16384u + 12288u + 4096u);
    EXPECT_EQ(tree.root().delta_blocks(), 2);
    EXPECT_EQ(tree.root().stacks, 4u);
  }
}

TEST(CallTree, TopDownMergesCommonCallers) {
  CallTree tree = Build(CallTree::Order::kTopDown);
  ASSERT_EQ(tree.root().children.size(), 1u);
  const CallTreeNode& main = tree.node(tree.root().children[0]);
  EXPECT_EQ(main.function, "main");
  // RunGame is called from two lines of main: two nodes, the level load first.
  ASSERT_EQ(main.children.size(), 2u);
  const CallTreeNode& run = tree.node(main.children[0]);
  EXPECT_EQ(run.location, "main.cpp:90");
  EXPECT_EQ(run.delta_bytes(), 16384 + 12288 + 4096);
  EXPECT_EQ(run.change(), Change::kNew);
  EXPECT_EQ(tree.node(main.children[1]).change(), Change::kGone);
  EXPECT_EQ(tree.node(main.children[1]).delta_bytes(), -41);
}

TEST(CallTree, BottomUpStartsAtTheAllocatingFunctionLargestChangeFirst) {
  CallTree tree = Build(CallTree::Order::kBottomUp);
  std::vector<std::string> roots;
  for (uint32_t i : tree.root().children) roots.push_back(tree.node(i).function + "@" + tree.node(i).location);
  EXPECT_EQ(roots, (std::vector<std::string>{"LoadLevel@level.cpp:24", "LoadNavMesh@level.cpp:14",
                                             "LoadLevel@level.cpp:29", "BuildHudText@hud.cpp:22"}));
  const CallTreeNode& nav = tree.node(tree.root().children[1]);
  EXPECT_EQ(nav.first_stack_id, 3u);
  ASSERT_EQ(nav.children.size(), 1u);
  EXPECT_EQ(tree.node(nav.children[0]).function, "LoadLevel");
  EXPECT_EQ(tree.node(nav.children[0]).depth, 2u);
}

TEST(CallTree, ChildrenNeverHoldMoreThanTheirParent) {
  CallTree tree = Build(CallTree::Order::kTopDown);
  for (size_t i = 0; i < tree.size(); ++i) {
    uint64_t bytes_b = 0;
    for (uint32_t c : tree.node(i).children) bytes_b += tree.node(c).bytes_b;
    if (tree.node(i).children.empty()) continue;
    EXPECT_EQ(bytes_b, tree.node(i).bytes_b) << tree.node(i).function;
  }
}

TEST(CallTree, StackWithoutFramesIsNamed) {
  CallTree tree = CallTree::Build({Row(9, 0, 0, 2, 64, Change::kNew)}, CallTree::Order::kBottomUp,
                                  [](uint32_t) { return std::vector<TreeFrame>{}; });
  ASSERT_EQ(tree.root().children.size(), 1u);
  EXPECT_EQ(tree.node(tree.root().children[0]).function, "(no stack)");
}

}  // namespace
}  // namespace memframe::viewer
