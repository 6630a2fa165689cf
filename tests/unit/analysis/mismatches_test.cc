// FindMismatches: every kind of mismatched free, and nothing for correct pairs.
#include "memframe/analysis/mismatches.h"

#include <gtest/gtest.h>

#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::Free;
using testing::ToEvent;

constexpr uint32_t kMalloc = wire::FAMILY_MALLOC, kNew = wire::FAMILY_NEW, kNewArray = wire::FAMILY_NEW_ARRAY;

TEST(Mismatches, CorrectPairsAndReallocAreClean) {
  Stream s;
  s.events = {ToEvent(Alloc(1, 0, 0x10, 8, 1, 0, 0, kMalloc)),  ToEvent(Free(2, 0, 0x10, 0, 0, kMalloc)),
              ToEvent(Alloc(3, 0, 0x20, 8, 2, 0, 0, kNew)),     ToEvent(Free(4, 0, 0x20, 0, 0, kNew)),
              ToEvent(Alloc(5, 0, 0x30, 8, 3, 0, 0, kNewArray)), ToEvent(Free(6, 0, 0x30, 0, 0, kNewArray)),
              ToEvent(Alloc(7, 0, 0x40, 8, 4)),
              ToEvent(Free(8, 0, 0x40, 0, wire::kFlagRealloc)), ToEvent(Alloc(9, 0, 0x50, 16, 4, 0, wire::kFlagRealloc)),
              // The address comes back from the allocator and is freed again: not a double free.
              ToEvent(Alloc(10, 0, 0x10, 8, 1)), ToEvent(Free(11, 0, 0x10))};
  MismatchReport r = FindMismatches(s);
  EXPECT_TRUE(r.mismatches.empty());
  EXPECT_EQ(r.frees, 5u);
  EXPECT_EQ(r.frees_with_stack, 0u);
}

TEST(Mismatches, EveryKindWithBothStacks) {
  Stream s;
  testing::TestEvent free_with_stack = Free(9, 3, 0x60, 0, 0, kNew);
  free_with_stack.stack_id = 77;  // an agent that records free stacks
  s.events = {ToEvent(Alloc(1, 0, 0x10, 24, 1, 0, 0, kNew)),      ToEvent(Free(2, 1, 0x10, 0, 0, kMalloc)),
              ToEvent(Alloc(3, 1, 0x20, 40, 2, 0, 0, kNewArray)), ToEvent(Free(4, 1, 0x20, 0, 0, kNew)),
              ToEvent(Alloc(5, 2, 0x30, 8, 3)),                   ToEvent(Free(6, 2, 0x30)),
              ToEvent(Free(7, 2, 0x30)),                          ToEvent(Free(8, 3, 0xBAD)),
              ToEvent(Alloc(8, 3, 0x60, 16, 4)),                  ToEvent(free_with_stack)};
  MismatchReport r = FindMismatches(s);
  ASSERT_EQ(r.mismatches.size(), 5u);
  EXPECT_EQ(r.frees, 6u);
  EXPECT_EQ(r.frees_with_stack, 1u);

  const Mismatch& new_free = r.mismatches[0];  // kFamily sorted by families' order of stacks
  EXPECT_EQ(new_free.kind, Mismatch::Kind::kFamily);
  EXPECT_EQ(new_free.alloc_stack, 1u);
  EXPECT_EQ(new_free.alloc_family, Family::kNew);
  EXPECT_EQ(new_free.free_family, Family::kMalloc);
  EXPECT_EQ(new_free.bytes, 24u);
  EXPECT_EQ(new_free.first_frame, 1u);

  const Mismatch& array_delete = r.mismatches[1];
  EXPECT_EQ(array_delete.alloc_family, Family::kNewArray);
  EXPECT_EQ(array_delete.free_family, Family::kNew);
  EXPECT_EQ(array_delete.alloc_stack, 2u);

  const Mismatch& malloc_delete = r.mismatches[2];
  EXPECT_EQ(malloc_delete.kind, Mismatch::Kind::kFamily);
  EXPECT_EQ(malloc_delete.alloc_family, Family::kMalloc);
  EXPECT_EQ(malloc_delete.free_family, Family::kNew);
  EXPECT_EQ(malloc_delete.alloc_stack, 4u);
  EXPECT_EQ(malloc_delete.free_stack, 77u);

  const Mismatch& twice = r.mismatches[3];
  EXPECT_EQ(twice.kind, Mismatch::Kind::kDoubleFree);
  EXPECT_EQ(twice.alloc_stack, 3u);
  EXPECT_EQ(twice.count, 1u);
  EXPECT_EQ(twice.bytes, 8u);

  const Mismatch& unknown = r.mismatches[4];
  EXPECT_EQ(unknown.kind, Mismatch::Kind::kUnknownPointer);
  EXPECT_EQ(unknown.first_address, 0xBADu);
  EXPECT_EQ(unknown.alloc_stack, 0u);
}

TEST(Mismatches, RepeatsOfOneMismatchAreOneRow) {
  Stream s;
  for (uint64_t i = 0; i < 3; ++i) {
    s.events.push_back(ToEvent(Alloc(10 * i + 1, static_cast<uint32_t>(i), 0x100 + i, 32, 5, 0, 0, kNewArray)));
    s.events.push_back(ToEvent(Free(10 * i + 2, static_cast<uint32_t>(i), 0x100 + i, 0, 0, kMalloc)));
  }
  MismatchReport r = FindMismatches(s);
  ASSERT_EQ(r.mismatches.size(), 1u);
  EXPECT_EQ(r.mismatches[0].count, 3u);
  EXPECT_EQ(r.mismatches[0].bytes, 96u);
  EXPECT_EQ(r.mismatches[0].first_frame, 0u);
  EXPECT_STREQ(AllocName(r.mismatches[0].alloc_family), "new[]");
  EXPECT_STREQ(FreeName(r.mismatches[0].free_family), "free");
}

}  // namespace
}  // namespace memframe::analysis
