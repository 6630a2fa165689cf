// Grouping by function (site_groups.h) on real return addresses of this
// test program, symbolized from its own debug info.
#include <gtest/gtest.h>

#include "memframe/analysis/site_groups.h"
#include "memframe/analysis/symbolizer.h"
#include "self_module.h"

namespace function_groups_test {

struct TwoCalls {
  uint64_t first = 0, second = 0;
};

// Two calls on two lines of one function: two stacks that differ only in
// the call's offset inside it.
__attribute__((noinline)) TwoCalls CallTwice() {
  TwoCalls calls;
  calls.first = memframe::testing::CallerReturnAddress();
  calls.second = memframe::testing::CallerReturnAddress();
  return calls;
}

__attribute__((noinline)) uint64_t CallElsewhere() { return memframe::testing::CallerReturnAddress(); }

}  // namespace function_groups_test

namespace memframe::analysis {
namespace {

SiteHistory History(uint32_t id, uint64_t frame, uint32_t allocations, uint64_t size) {
  SiteHistory h;
  h.stack_id = id;
  h.allocations = allocations;
  h.bytes = allocations * size;
  h.size_min = h.size_max = size;
  h.frames = {{frame, allocations, allocations * size}};
  return h;
}

TEST(FunctionGroups, StacksThatDifferOnlyInTheCallOffsetAreOneSite) {
  const function_groups_test::TwoCalls calls = function_groups_test::CallTwice();
  const uint64_t elsewhere = function_groups_test::CallElsewhere();
  const uint64_t outer = testing::CallerReturnAddress();
  const uint64_t other_outer = testing::CallerReturnAddress();
  ASSERT_NE(calls.first, calls.second);

  Stream stream;
  stream.stacks[1] = {calls.first, outer};
  stream.stacks[2] = {calls.second, outer};
  stream.stacks[3] = {elsewhere, outer};
  stream.stacks[4] = {calls.first, other_outer};  // the same function, called from elsewhere
  CallSiteIndex sites({History(1, 5, 2, 16), History(2, 5, 1, 4096), History(3, 5, 1, 8), History(4, 6, 1, 16)});
  Symbolizer symbolizer({testing::SelfModule()});

  GroupedSites by_function = GroupSitesByFunction(sites, stream, symbolizer);
  ASSERT_EQ(by_function.index.sites().size(), 3u);
  EXPECT_EQ(by_function.members.at(1), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(by_function.members.at(3), (std::vector<uint32_t>{3}));
  EXPECT_EQ(by_function.members.at(4), (std::vector<uint32_t>{4}));
  const SiteHistory* merged = by_function.index.Find(1);
  ASSERT_NE(merged, nullptr);
  EXPECT_EQ(merged->allocations, 3u);
  EXPECT_EQ(merged->bytes, 2 * 16u + 4096u);
  EXPECT_EQ(merged->size_min, 16u);
  EXPECT_EQ(merged->size_max, 4096u);
  ASSERT_EQ(merged->frames.size(), 1u);
  EXPECT_EQ(merged->frames[0].allocations, 3u);

  // By user stack (the report's grouping) the two lines stay apart.
  EXPECT_EQ(GroupSitesByUserStack(sites, stream, symbolizer).index.sites().size(), 4u);
}

TEST(FunctionGroups, UnknownStacksNeverMerge) {
  Stream stream;  // no stacks: nothing to symbolize
  CallSiteIndex sites({History(1, 0, 1, 8), History(2, 0, 1, 8)});
  Symbolizer symbolizer({});
  EXPECT_EQ(GroupSitesByFunction(sites, stream, symbolizer).index.sites().size(), 2u);
}

}  // namespace
}  // namespace memframe::analysis
