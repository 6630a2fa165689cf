// Regions, holes and fragmentation (fragmentation.h), mapped regions under
// partial munmap, and the address-map PNG decoded pixel by pixel.
#include "memframe/analysis/fragmentation.h"

#include <gtest/gtest.h>

#include "memframe/report/address_map_png.h"
#include "test_capture.h"

#define STB_IMAGE_STATIC
#define STB_IMAGE_IMPLEMENTATION
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <stb/stb_image.h>
#pragma GCC diagnostic pop

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::ToEvent;

using testing::MapEvent;

// Frame 0: A (0x100000, 100 B) and B (0x100080, 64 B: 28 B after A, allocator
// slack, not a hole). Frame 1: C (0x101000, 256 B), D (0x102000, 16 B), E far
// away (0x100000000, 32 B), a 64 KiB mapping at 0x200000000 with F
// (0x200000100, 256 B) inside it. Frame 2: B is freed.
Stream LayoutStream() {
  Stream s;
  s.events = {ToEvent(Alloc(1, 0, 0x100000, 100, 1)),
              ToEvent(Alloc(2, 0, 0x100080, 64, 1)),
              ToEvent(FrameEnd(3, 0)),
              ToEvent(Alloc(4, 1, 0x101000, 256, 2)),
              ToEvent(Alloc(5, 1, 0x102000, 16, 2)),
              ToEvent(Alloc(6, 1, 0x100000000, 32, 3)),
              MapEvent(7, 1, EventKind::kMap, 0x200000000, 0x10000, 4),
              ToEvent(Alloc(8, 1, 0x200000100, 256, 5)),
              ToEvent(FrameEnd(9, 1)),
              ToEvent(Free(10, 2, 0x100080)),
              ToEvent(FrameEnd(11, 2))};
  return s;
}

TEST(Fragmentation, ClustersHolesAndMappings) {
  auto samples = FragmentationTimeline(LayoutStream(), {0, 1, 2});
  ASSERT_EQ(samples.size(), 3u);

  ASSERT_EQ(samples[0].regions.size(), 1u);
  const RegionLayout& first = samples[0].regions[0];
  EXPECT_EQ(first.start, 0x100000u);
  EXPECT_EQ(first.end, 0x1000C0u);
  EXPECT_EQ(first.blocks, 2u);
  EXPECT_EQ(first.live_bytes, 164u);
  EXPECT_EQ(first.holes, 0u);
  EXPECT_EQ(first.fragmentation, 0.0);

  ASSERT_EQ(samples[1].regions.size(), 3u);
  const RegionLayout& heap = samples[1].regions[0];
  EXPECT_FALSE(heap.mapped);
  EXPECT_EQ(heap.end, 0x102010u);
  EXPECT_EQ(heap.blocks, 4u);
  EXPECT_EQ(heap.live_bytes, 436u);
  EXPECT_EQ(heap.holes, 2u);                    // 0x1000C0..0x101000 and 0x101100..0x102000
  EXPECT_EQ(heap.free_bytes, 3904u + 3840u);
  EXPECT_EQ(heap.largest_free_gap, 3904u);
  EXPECT_DOUBLE_EQ(heap.fragmentation, 1.0 - 3904.0 / 7744.0);
  const RegionLayout& far = samples[1].regions[1];
  EXPECT_EQ(far.start, 0x100000000u);
  EXPECT_EQ(far.span(), 32u);
  const RegionLayout& mapped = samples[1].regions[2];
  EXPECT_TRUE(mapped.mapped);
  EXPECT_EQ(mapped.stack_id, 4u);
  EXPECT_EQ(mapped.span(), 0x10000u);
  EXPECT_EQ(mapped.blocks, 1u);
  EXPECT_EQ(mapped.live_bytes, 256u);
  EXPECT_EQ(mapped.holes, 2u);  // before F and after it
  EXPECT_EQ(mapped.free_bytes, 0x10000u - 256);
  EXPECT_EQ(mapped.largest_free_gap, 0x10000u - 0x200);

  // Freeing B joins A's 28 bytes of slack, B and the hole before C.
  const RegionLayout& after = samples[2].regions[0];
  EXPECT_EQ(after.holes, 2u);
  EXPECT_EQ(after.largest_free_gap, 28u + 64 + 3904);
  EXPECT_EQ(after.free_bytes, 28u + 64 + 3904 + 3840);
}

FrameTable TableOf(std::vector<uint64_t> frames) {
  FrameTable t;
  for (uint64_t f : frames) t.frames.push_back({.frame = f});
  return t;
}

TEST(Fragmentation, SampleFramesSpreadsOverTheCapture) {
  std::vector<uint64_t> hundred;
  for (uint64_t f = 0; f <= 100; ++f) hundred.push_back(f);
  FrameTable dense = TableOf(hundred);
  EXPECT_EQ(SampleFrames(dense, 3, 64), (std::vector<uint64_t>{0, 1, 2, 3}));
  EXPECT_EQ(SampleFrames(dense, 100, 5), (std::vector<uint64_t>{0, 25, 50, 75, 100}));
  EXPECT_EQ(SampleFrames(dense, 100, 1), (std::vector<uint64_t>{100}));
  // Frames that start anywhere and have gaps: sampled by position, never
  // a number the capture does not have.
  const uint64_t base = 1ull << 40;
  FrameTable sparse = TableOf({base, base + 1, base + 1'000'000'000, base + 1'000'000'001, base + 5'000'000'000});
  EXPECT_EQ(SampleFrames(sparse, UINT64_MAX, 64), (std::vector<uint64_t>{base, base + 1, base + 1'000'000'000,
                                                                         base + 1'000'000'001, base + 5'000'000'000}));
  EXPECT_EQ(SampleFrames(sparse, UINT64_MAX, 3),
            (std::vector<uint64_t>{base, base + 1'000'000'000, base + 5'000'000'000}));
  EXPECT_EQ(SampleFrames(sparse, base + 1'000'000'000, 2), (std::vector<uint64_t>{base, base + 1'000'000'000}));
}

TEST(MappedRegions, PartialUnmapSplitsAndRemapMoves) {
  MappedRegions regions;
  regions.Map(MapEvent(1, 0, EventKind::kMap, 0x10000, 0x10000, 3));
  regions.Unmap(0x18000, 0x1000);
  ASSERT_EQ(regions.regions().size(), 2u);
  EXPECT_EQ(regions.mapped_bytes(), 0xF000u);
  EXPECT_EQ(regions.regions().at(0x10000).end, 0x18000u);
  EXPECT_EQ(regions.regions().at(0x19000).end, 0x20000u);
  EXPECT_EQ(regions.regions().at(0x19000).stack_id, 3u);
  EXPECT_EQ(regions.Find(0x18800), nullptr);
  ASSERT_NE(regions.Find(0x1F000), nullptr);
  // One munmap over both pieces and beyond.
  regions.Unmap(0x0, 0x100000);
  EXPECT_TRUE(regions.regions().empty());
  EXPECT_EQ(regions.mapped_bytes(), 0u);
}

TEST(AddressMap, PixelsShowBlocksByAgeAndHolesDark) {
  // One heap region: A (32 B, frame 0) at 0x1000 and B (16 B, frame 2) at
  // 0x10A0; at frame 2, A is as old as the capture (blue) and B new (red).
  Stream s;
  s.events = {ToEvent(Alloc(1, 0, 0x1000, 32, 1)), ToEvent(FrameEnd(2, 0)), ToEvent(FrameEnd(3, 1)),
              ToEvent(Alloc(4, 2, 0x10A0, 16, 2)), ToEvent(FrameEnd(5, 2))};
  AddressSpace space = AddressSpaceAtFrame(s, 2);
  EXPECT_EQ(space.frame, 2u);
  AddressMapImage image = RenderAddressMap(space, MapColoring::kAge);
  EXPECT_EQ(image.bytes_per_pixel, 16u);
  EXPECT_EQ(image.width, kMapWidth);
  EXPECT_EQ(image.height, 2);  // one row for the region, one separator

  testing::TempPath png("map.png");
  std::string error;
  ASSERT_TRUE(WritePng(image, png.path(), &error)) << error;
  int w = 0, h = 0, channels = 0;
  unsigned char* pixels = stbi_load(png.path().c_str(), &w, &h, &channels, 3);
  ASSERT_NE(pixels, nullptr);
  ASSERT_EQ(w, kMapWidth);
  ASSERT_EQ(h, 2);
  auto at = [&](int x, int y) {
    const unsigned char* p = pixels + (y * w + x) * 3;
    return Rgb{p[0], p[1], p[2]};
  };
  EXPECT_EQ(at(0, 0), (Rgb{0, 0, 255}));
  EXPECT_EQ(at(1, 0), (Rgb{0, 0, 255}));
  EXPECT_EQ(at(2, 0), kHeapFreeColor);
  EXPECT_EQ(at(9, 0), kHeapFreeColor);
  EXPECT_EQ(at(10, 0), (Rgb{255, 0, 0}));
  EXPECT_EQ(at(11, 0), kSeparatorColor);  // past the region's 11 pixels
  EXPECT_EQ(at(0, 1), kSeparatorColor);
  stbi_image_free(pixels);

  AddressMapImage by_site = RenderAddressMap(space, MapColoring::kSite);
  LiveBlock a{32, 1, 1, 0, Family::kMalloc};
  Rgb site_color = BlockColor(a, 2, MapColoring::kSite);
  EXPECT_EQ((Rgb{by_site.rgb[0], by_site.rgb[1], by_site.rgb[2]}), site_color);
  EXPECT_NE(site_color, BlockColor(LiveBlock{16, 4, 2, 2, Family::kMalloc}, 2, MapColoring::kSite));
}

}  // namespace
}  // namespace memframe::analysis
