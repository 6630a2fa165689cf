#include "address_map.h"

#include <gtest/gtest.h>

namespace memframe::viewer {
namespace {

using analysis::AddressSpace;
using analysis::LiveBlock;
using analysis::RegionLayout;

// One heap region 0x1000..0x1400 with two blocks and a hole between them.
AddressSpace Space() {
  AddressSpace space;
  space.frame = 10;
  space.blocks[0x1000] = LiveBlock{0x100, 0, 1, 10, analysis::Family::kMalloc};  // made this frame: red
  space.blocks[0x1300] = LiveBlock{0x100, 0, 2, 0, analysis::Family::kMalloc};   // frame 0: blue
  return space;
}

TEST(AddressMap, BandsAreRowsPlusASeparator) {
  auto regions = analysis::LayoutRegions(Space());
  ASSERT_EQ(regions.size(), 1u);
  EXPECT_EQ(regions[0].span(), 0x400u);
  AddressMap map(regions, 16, 16);  // 256 bytes per row: 4 rows and a separator
  EXPECT_EQ(map.total_rows(), 5u);
  EXPECT_FALSE(map.At(4, 0));  // separator
  auto spot = map.At(1, 2);
  ASSERT_TRUE(spot);
  EXPECT_EQ(spot->address, 0x1000u + 256 + 32);
  EXPECT_EQ(map.RowOf(0, 0x1300), 3u);
}

TEST(AddressMap, FitIsTheSmallestPowerOfTwoThatFits) {
  auto regions = analysis::LayoutRegions(Space());
  EXPECT_EQ(AddressMap::FitBytesPerPixel(regions, 16, 5), 16u);
  EXPECT_EQ(AddressMap::FitBytesPerPixel(regions, 16, 3), 32u);   // 2 rows of 512 B + separator
  EXPECT_EQ(AddressMap::FitBytesPerPixel(regions, 16, 100), 1u);
}

TEST(AddressMap, PaintsBlocksHolesAndSeparators) {
  AddressSpace space = Space();
  auto regions = analysis::LayoutRegions(space);
  AddressMap map(regions, 16, 16);
  std::vector<uint32_t> px;
  map.Paint(space, analysis::MapColoring::kAge, 0, 5, &px);
  ASSERT_EQ(px.size(), 16u * 5);
  const uint32_t young = Rgba(analysis::BlockColor(space.blocks[0x1000], 10, analysis::MapColoring::kAge));
  const uint32_t old = Rgba(analysis::BlockColor(space.blocks[0x1300], 10, analysis::MapColoring::kAge));
  const uint32_t hole = Rgba(analysis::kHeapFreeColor);
  EXPECT_NE(young, old);
  for (int x = 0; x < 16; ++x) {
    EXPECT_EQ(px[0 * 16 + x], young);
    EXPECT_EQ(px[1 * 16 + x], hole);
    EXPECT_EQ(px[2 * 16 + x], hole);
    EXPECT_EQ(px[3 * 16 + x], old);
    EXPECT_EQ(px[4 * 16 + x], kMapBackground);
  }
  // Scrolled: the first painted row is row 3.
  map.Paint(space, analysis::MapColoring::kAge, 3, 2, &px);
  EXPECT_EQ(px[0], old);
  EXPECT_EQ(px[16], kMapBackground);
}

TEST(AddressMap, APixelTakesTheHighestBlockTouchingIt) {
  AddressSpace space;
  space.frame = 4;
  space.blocks[0x2000] = LiveBlock{8, 0, 1, 0, analysis::Family::kMalloc};
  space.blocks[0x2008] = LiveBlock{8, 0, 2, 4, analysis::Family::kMalloc};
  auto regions = analysis::LayoutRegions(space);
  AddressMap map(regions, 4, 64);  // the whole region in one pixel
  std::vector<uint32_t> px;
  map.Paint(space, analysis::MapColoring::kSite, 0, 1, &px);
  EXPECT_EQ(px[0], Rgba(analysis::BlockColor(space.blocks[0x2008], 4, analysis::MapColoring::kSite)));
  EXPECT_EQ(px[1], kMapBackground);  // past the end of the band
}

}  // namespace
}  // namespace memframe::viewer
