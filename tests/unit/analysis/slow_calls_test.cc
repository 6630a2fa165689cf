// FindSlowCalls: the slowest calls of the frames asked for, slowest first,
// ties in time order, the game's own allocators and other frames left out.
#include "memframe/analysis/slow_calls.h"

#include <gtest/gtest.h>

#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::Free;
using testing::ToEvent;

Stream MadeUp() {
  Stream s;
  s.events = {
      ToEvent(Alloc(1, 0, 0x10, 64, 1, /*duration=*/900)),  // start-up: outside the ranges asked
      ToEvent(Alloc(2, 1, 0x20, 32, 2, 40)),
      ToEvent(Alloc(3, 1, 0x30, 48, 3, 700, 0, wire::FAMILY_NEW)),
      ToEvent(Free(4, 2, 0x20, 300)),
      ToEvent(Alloc(5, 2, 0x40, 16, 4, 700, wire::kFlagCalloc)),  // as slow as the new, later
      ToEvent(Free(6, 2, 0x30, 0, wire::kFlagRealloc)), ToEvent(Alloc(7, 2, 0x50, 96, 3, 500, wire::kFlagRealloc)),
      ToEvent(Alloc(8, 3, 0x60, 8, 5, 5000, wire::kFlagCustom)),  // the game's own allocator: no allocator time
      ToEvent(Alloc(9, 4, 0x70, 8, 6, 8000)),                      // after the ranges asked
  };
  return s;
}

TEST(SlowCalls, SlowestFirstOfTheFramesAsked) {
  const SlowCalls r = FindSlowCalls(MadeUp(), {{1, 3}}, 3);
  ASSERT_EQ(r.calls.size(), 3u);
  EXPECT_EQ(r.calls_timed, 6u);  // frames 1..3, the custom block left out
  EXPECT_EQ(r.time_ticks, 40u + 700 + 300 + 700 + 0 + 500);
  EXPECT_EQ(r.calls[0].duration_ticks, 700u);
  EXPECT_EQ(r.calls[0].stack_id, 3u);  // the earlier of the two 700s
  EXPECT_EQ(CallName(r.calls[0].packed_kind), "new");
  EXPECT_EQ(r.calls[0].size, 48u);
  EXPECT_EQ(r.calls[0].frame, 1u);
  EXPECT_EQ(r.calls[1].duration_ticks, 700u);
  EXPECT_EQ(CallName(r.calls[1].packed_kind), "calloc");
  EXPECT_EQ(r.calls[1].frame, 2u);
  EXPECT_EQ(r.calls[2].duration_ticks, 500u);
  EXPECT_EQ(CallName(r.calls[2].packed_kind), "realloc");
  EXPECT_EQ(r.calls[2].size, 96u);
}

TEST(SlowCalls, RangesSitesAndFreesWithoutAStack) {
  const SlowCalls both = FindSlowCalls(MadeUp(), {{0, 0}, {2, 2}}, 10);
  ASSERT_EQ(both.calls.size(), 5u);  // frame 0's one and frame 2's four
  EXPECT_EQ(both.calls[0].duration_ticks, 900u);
  EXPECT_EQ(both.calls[2].duration_ticks, 500u);
  const SlowCall& free = both.calls[3];
  EXPECT_EQ(free.duration_ticks, 300u);
  EXPECT_EQ(CallName(free.packed_kind), "free");
  EXPECT_EQ(free.size, 0u);
  EXPECT_EQ(free.stack_id, 0u);
  EXPECT_EQ(CallName(both.calls[4].packed_kind), "realloc");  // its FREE half, timed in its ALLOC
  EXPECT_EQ(both.calls[4].duration_ticks, 0u);

  // Only the sites kept: a free without a stack is kept by its stack id 0.
  const SlowCalls site3 = FindSlowCalls(MadeUp(), {{0, 10}}, 10, [](uint32_t id) { return id == 3; });
  ASSERT_EQ(site3.calls.size(), 2u);
  EXPECT_EQ(site3.calls_timed, 2u);
  EXPECT_EQ(site3.calls[0].duration_ticks, 700u);
  EXPECT_EQ(site3.calls[1].duration_ticks, 500u);

  EXPECT_TRUE(FindSlowCalls(MadeUp(), {{1, 3}}, 0).calls.empty());
  EXPECT_EQ(FindSlowCalls(MadeUp(), {{1, 3}}, 0).calls_timed, 6u);
}

}  // namespace
}  // namespace memframe::analysis
