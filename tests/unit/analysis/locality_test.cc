// AnalyzeLocality on hand-made live sets: pages, cache lines, span, and the
// advice for per-frame sites that spread their blocks.
#include "memframe/analysis/locality.h"

#include <gtest/gtest.h>

#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::ToEvent;

constexpr uint64_t kFrames = 10;

struct Fixture {
  LiveSet live;
  CallSiteBuilder sites;
  // A block live at the end, and `frames` frames in which its site allocated.
  void Add(uint64_t address, uint64_t size, uint32_t stack, uint64_t frame = 0) {
    Event e = ToEvent(Alloc(1, frame, address, size, stack));
    LiveBlock replaced;
    live.Alloc(e, &replaced);
    sites.OnAlloc(e);
  }
  void AllocateIn(uint32_t stack, uint64_t frames) {
    for (uint64_t f = 0; f < frames; ++f) sites.OnAlloc(ToEvent(Alloc(1, f, 0xdead0000 + f, 1, stack)));
  }
};

const SiteLocality& Site(const std::vector<SiteLocality>& sites, uint32_t stack) {
  for (const SiteLocality& s : sites)
    if (s.stack_id == stack) return s;
  ADD_FAILURE() << "no site " << stack;
  return sites.front();
}

TEST(Locality, PagesLinesAndSpanPerSite) {
  Fixture f;
  // Stack 1: 8 x 64 B, one per page; allocates every frame -> scattered.
  for (uint64_t i = 0; i < 8; ++i) f.Add(0x100000 + i * 4096, 64, 1);
  f.AllocateIn(1, kFrames);
  // Stack 2: 8 x 64 B side by side in one page; every frame -> together.
  for (uint64_t i = 0; i < 8; ++i) f.Add(0x200000 + i * 64, 64, 2);
  f.AllocateIn(2, kFrames);
  // Stack 3: spread like stack 1, but allocates in 2 of 10 frames.
  for (uint64_t i = 0; i < 8; ++i) f.Add(0x300000 + i * 4096, 64, 3);
  f.AllocateIn(3, 2);
  // Stack 4: one 120 B block across a page boundary: 2 pages, 3 lines.
  f.Add(0x400000 + 4096 - 40, 120, 4);
  f.AllocateIn(4, kFrames);
  std::vector<SiteLocality> sites = AnalyzeLocality(f.live, f.sites.Finish(), kFrames);
  ASSERT_EQ(sites.size(), 4u);
  EXPECT_EQ(sites[0].stack_id, 1u);  // the only scattered one comes first

  const SiteLocality& spread = Site(sites, 1);
  EXPECT_EQ(spread.blocks, 8u);
  EXPECT_EQ(spread.bytes, 512u);
  EXPECT_EQ(spread.pages, 8u);
  EXPECT_EQ(spread.cache_lines, 8u);
  EXPECT_EQ(spread.packed_pages, 1u);
  EXPECT_EQ(spread.span, 7u * 4096 + 64);
  EXPECT_TRUE(spread.per_frame);
  EXPECT_TRUE(spread.scattered);
  EXPECT_DOUBLE_EQ(spread.pages_per_block(), 1.0);

  const SiteLocality& packed = Site(sites, 2);
  EXPECT_EQ(packed.pages, 1u);
  EXPECT_EQ(packed.cache_lines, 8u);
  EXPECT_EQ(packed.span, 512u);
  EXPECT_TRUE(packed.per_frame);
  EXPECT_FALSE(packed.scattered);

  const SiteLocality& rare = Site(sites, 3);
  EXPECT_EQ(rare.pages, 8u);
  EXPECT_FALSE(rare.per_frame);
  EXPECT_FALSE(rare.scattered);

  const SiteLocality& straddling = Site(sites, 4);
  EXPECT_EQ(straddling.pages, 2u);
  EXPECT_EQ(straddling.cache_lines, 3u);  // 40 B before the boundary (its last line), 80 B after (two lines)
  EXPECT_FALSE(straddling.scattered);     // one block
}

}  // namespace
}  // namespace memframe::analysis
