#include "capture/recent_stacks.h"

#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "capture/stack_table.h"

namespace memframe::agent {
namespace {

// The per-thread cache answers exactly what the shared table answers, for
// stacks that differ only deep down, only in depth, or only in the
// innermost frame, and while more stacks cycle through it than it holds.
TEST(RecentStacks, AnswersWhatTheTableAnswers) {
  ASSERT_TRUE(InitStackTable());
  auto recent = std::make_unique<RecentStacks>();
  std::vector<std::vector<uint64_t>> stacks = {
      {0x7000, 0x7100, 0x7200, 0x7300},
      {0x7000, 0x7100, 0x7200, 0x7301},  // differs in the outermost frame
      {0x7000, 0x7100, 0x7200},          // a prefix: other depth
      {0x7001, 0x7100, 0x7200, 0x7300},  // differs in the innermost frame
      {0x8000},
      {0x8000, 0x8100},
  };
  // More distinct stacks than entries, revisited in a pattern that both
  // hits and evicts.
  for (int round = 0; round < 5; ++round) {
    for (size_t k = 0; k < stacks.size(); ++k) {
      const auto& s = stacks[(k * (round + 1)) % stacks.size()];
      uint32_t expected = InternStack(s.data(), static_cast<int>(s.size()));
      ASSERT_NE(expected, 0u);
      EXPECT_EQ(InternStackRecent(*recent, s.data(), static_cast<int>(s.size())), expected)
          << "round " << round << " stack " << k;
    }
  }
}

TEST(RecentStacks, ARepeatedStackIsAnsweredFromTheCache) {
  ASSERT_TRUE(InitStackTable());
  auto recent = std::make_unique<RecentStacks>();
  uint64_t frames[] = {0x9000, 0x9100, 0x9200};
  uint32_t id = InternStackRecent(*recent, frames, 3);
  ASSERT_NE(id, 0u);
  // The entry holds the id and a copy of the frames.
  int entry = -1;
  for (int i = 0; i < RecentStacks::kEntries; ++i)
    if (recent->id[i] == id) entry = i;
  ASSERT_GE(entry, 0);
  EXPECT_EQ(recent->depth[entry], 3);
  EXPECT_EQ(recent->frames[entry][2], 0x9200u);
  // Answered from the entry: an id planted there comes back (only the cache
  // can answer this way), and no new entry is taken.
  recent->id[entry] = id + 1000;
  uint32_t next_before = recent->next;
  EXPECT_EQ(InternStackRecent(*recent, frames, 3), id + 1000);
  EXPECT_EQ(recent->next, next_before);
}

}  // namespace
}  // namespace memframe::agent
