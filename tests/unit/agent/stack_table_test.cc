#include "capture/stack_table.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <set>
#include <thread>
#include <vector>

namespace memframe::agent {
namespace {

TEST(StackTable, SameStackSameIdOtherStackOtherId) {
  ASSERT_TRUE(InitStackTable());
  uint64_t a[] = {0x1000, 0x2000, 0x3000};
  uint64_t b[] = {0x1000, 0x2000, 0x3001};
  uint64_t prefix[] = {0x1000, 0x2000};
  uint32_t id_a = InternStack(a, 3);
  EXPECT_NE(id_a, 0u);
  EXPECT_EQ(InternStack(a, 3), id_a);
  uint32_t id_b = InternStack(b, 3);
  uint32_t id_prefix = InternStack(prefix, 2);
  EXPECT_NE(id_b, id_a);
  EXPECT_NE(id_prefix, id_a);
  EXPECT_NE(id_prefix, id_b);
  int depth = 0;
  const uint64_t* frames = StackFrames(id_b, &depth);
  ASSERT_EQ(depth, 3);
  EXPECT_EQ(frames[2], 0x3001u);
  EXPECT_EQ(InternStack(a, 0), 0u);
}

std::vector<uint64_t> FramesOf(int s) {
  return {0xabc000u + static_cast<uint64_t>(s), 0x42, static_cast<uint64_t>(s) * 31, 7};
}

TEST(StackTable, ConcurrentInterningAgreesOnIds) {
  ASSERT_TRUE(InitStackTable());
  constexpr int kThreads = 4, kStacks = 2000;
  std::vector<std::vector<uint32_t>> ids(kThreads, std::vector<uint32_t>(kStacks));
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      // Every thread interns the same stacks, in a different order.
      for (int k = 0; k < kStacks; ++k) {
        int s = (k * 7919 + t * 577) % kStacks;  // 7919 is prime: a permutation
        ids[t][s] = InternStack(FramesOf(s).data(), 4);
      }
    });
  }
  for (auto& th : threads) th.join();
  std::set<uint32_t> distinct;
  for (int s = 0; s < kStacks; ++s) {
    for (int t = 1; t < kThreads; ++t) ASSERT_EQ(ids[t][s], ids[0][s]) << "stack " << s;
    ASSERT_NE(ids[0][s], 0u);
    distinct.insert(ids[0][s]);
    int depth = 0;
    const uint64_t* frames = StackFrames(ids[0][s], &depth);
    ASSERT_EQ(depth, 4);
    EXPECT_EQ(std::vector<uint64_t>(frames, frames + depth), FramesOf(s)) << "stack " << s;
  }
  EXPECT_EQ(distinct.size(), static_cast<size_t>(kStacks));
}

// The hash slots are mapped a level at a time: a program with few stacks
// keeps only the first level's 512 KiB (the agent's resident memory).
TEST(StackTable, OnlyTheFirstLevelIsMappedWhileItHasRoom) {
  ASSERT_TRUE(InitStackTable());
  uint64_t frame = 0x1234;
  ASSERT_NE(InternStack(&frame, 1), 0u);
  PrefaultStackTable(64ull << 20);  // the writer's pass: commits what is mapped, maps nothing more yet
  EXPECT_EQ(StackTableSlotBytesMapped(), 512ull << 10);
}

// Interns more stacks than the first level takes, from two threads in
// opposite orders; exits 0 when both agree on every id, the ids are
// distinct and the first stacks keep theirs.
void FillPastFirstLevelAndExit() {
  constexpr int kStacks = 3 * 16384 + 5000;  // the first level takes 3/4 of 2^16
  std::vector<uint32_t> ids[2] = {std::vector<uint32_t>(kStacks), std::vector<uint32_t>(kStacks)};
  auto frames = [](int s) { return std::vector<uint64_t>{0x7000000ull + static_cast<uint64_t>(s), 0x99, 3}; };
  std::vector<uint64_t> first = frames(0);
  const uint32_t first_id = InternStack(first.data(), 3);
  std::thread other([&] {
    for (int s = kStacks - 1; s >= 0; --s) ids[1][s] = InternStack(frames(s).data(), 3);
  });
  for (int s = 0; s < kStacks; ++s) {
    ids[0][s] = InternStack(frames(s).data(), 3);
    if (s % 4096 == 0) PrefaultStackTable(4ull << 20);  // the writer's passes, as the table fills
  }
  other.join();
  bool ok = first_id != 0 && ids[0][0] == first_id && StacksOverflowed() == 0;
  std::set<uint32_t> distinct;
  for (int s = 0; ok && s < kStacks; ++s) {
    // Two threads meeting a new stack as the first level fills may intern
    // it twice (stack_table.cc); a lookup then finds one of the two.
    const uint32_t again = InternStack(frames(s).data(), 3);
    ok = ids[0][s] != 0 && ids[1][s] != 0 && (again == ids[0][s] || again == ids[1][s]);
    distinct.insert(ids[0][s]);
  }
  ok = ok && distinct.size() == static_cast<size_t>(kStacks) && StackTableSlotBytesMapped() > (512ull << 10);
  exit(ok ? 0 : 1);
}

TEST(StackTable, StacksPastTheFirstLevelAreInternedAndFoundAgain) {
  ASSERT_TRUE(InitStackTable());
  EXPECT_EXIT(FillPastFirstLevelAndExit(), ::testing::ExitedWithCode(0), "");
}

// Fills the table and checks what it does then; exits 0 when all held.
void FillTableAndExit() {
  uint64_t kept[] = {0x5eed, 1};
  const uint32_t kept_id = InternStack(kept, 2);
  bool ok = kept_id != 0;
  const uint64_t capacity = StackTableCapacity();
  uint64_t frame = 0;
  for (uint64_t i = StackCount(); ok && i <= capacity; ++i) {
    frame = 0x10000000ull + i;
    ok = InternStack(&frame, 1) != 0;
  }
  ok = ok && StacksOverflowed() == 0;
  uint64_t extra = 0x7fff0000ull;
  ok = ok && InternStack(&extra, 1) == 0 && StacksOverflowed() == 1;
  ok = ok && InternStack(&extra, 1) == 0 && StacksOverflowed() == 2;  // every event from it counts
  ok = ok && InternStack(kept, 2) == kept_id && InternStack(&frame, 1) != 0;  // the ones in it stay
  exit(ok ? 0 : 1);
}

// In a child process (a death test), so the tests that run after this one
// in the same binary still have room.
TEST(StackTable, FullTableGivesNewStacksIdZeroAndCountsThem) {
  ASSERT_TRUE(InitStackTable());
  EXPECT_EXIT(FillTableAndExit(), ::testing::ExitedWithCode(0), "");
  EXPECT_GE(StackTableCapacity(), 1000000u) << "games see up to 10^6 distinct stacks";
}

}  // namespace
}  // namespace memframe::agent
