#include "row_filter.h"

#include <gtest/gtest.h>

namespace memframe::viewer {
namespace {

SiteLabel Label(std::string name, std::string function, std::string location, std::string module) {
  SiteLabel l;
  l.name = std::move(name);
  l.function = std::move(function);
  l.location = std::move(location);
  l.module = std::move(module);
  l.has_stack = true;
  return l;
}

TEST(RowFilter, SearchFindsFunctionModuleOrFileInAnyCase) {
  SiteLabel driver = Label("swrast_dri.so (via DrawGameplay render.cpp:62)", "DrawGameplay()", "render.cpp:62",
                           "swrast_dri.so");
  SiteLabel game = Label("memframe::demo::SpawnDamageLabel(int, int)", "memframe::demo::SpawnDamageLabel(int, int)",
                         "entities.cpp:46", "memframe_demo_game");
  EXPECT_TRUE(MatchesSearch(driver, ""));
  EXPECT_TRUE(MatchesSearch(driver, "SWRAST"));        // module, other case
  EXPECT_TRUE(MatchesSearch(driver, "drawgameplay"));  // function
  EXPECT_TRUE(MatchesSearch(driver, "Render.CPP:6"));  // file and line
  EXPECT_FALSE(MatchesSearch(game, "render"));
  EXPECT_TRUE(MatchesSearch(game, "spawndamage"));
  EXPECT_TRUE(MatchesSearch(game, "entities.cpp"));
  EXPECT_TRUE(MatchesSearch(game, "DEMO_GAME"));
  EXPECT_FALSE(MatchesSearch(game, "spawn damage"));
}

analysis::SourceFrame Frame(std::string function, std::string file = "", uint32_t line = 0) {
  analysis::SourceFrame f;
  f.function = std::move(function);
  f.file = std::move(file);
  f.line = line;
  return f;
}

// A frame a site's stack passes through matches by its function or its
// file:line (its module does not: the game's executable is on most stacks).
TEST(RowFilter, AFrameMatchesByFunctionOrFileAndLine) {
  const analysis::SourceFrame tick = Frame("GameplayTick(int)", "/src/game/main.cpp", 50);
  EXPECT_TRUE(FrameMatchesSearch(tick, "gameplaytick"));
  EXPECT_TRUE(FrameMatchesSearch(tick, "MAIN.cpp:5"));
  EXPECT_FALSE(FrameMatchesSearch(tick, "src/game"));  // the location is the file's name
  EXPECT_FALSE(FrameMatchesSearch(Frame("swrast_dri.so+0x1234"), "GameplayTick"));
}

analysis::SiteStats Site(uint32_t id, uint64_t allocations, uint64_t bytes) {
  analysis::SiteStats s;
  s.stack_id = id;
  s.allocations = allocations;
  s.bytes = bytes;
  s.frames_with_allocations = 3;
  return s;
}

TEST(RowFilter, SizeBinKeepsTheSitesOfTheBinWithTheBinsFigures) {
  // Site 1 made 32-byte and 4 KiB blocks, site 2 only 4 KiB ones, site 3
  // only 40-byte ones: the [32, 64) bin is sites 1 and 3, with those figures.
  std::vector<analysis::SiteStats> rows = {Site(1, 5, 3 * 32 + 2 * 4096), Site(2, 1, 4096), Site(3, 2, 80)};
  std::vector<analysis::SizeBinSite> bin = {{1, 3, 96}, {3, 2, 80}};
  RestrictToSizeBin(rows, bin, [](uint32_t id) { return id; });
  ASSERT_EQ(rows.size(), 2u);
  EXPECT_EQ(rows[0].stack_id, 1u);
  EXPECT_EQ(rows[0].allocations, 3u);
  EXPECT_EQ(rows[0].bytes, 96u);
  EXPECT_EQ(rows[0].frames_with_allocations, 3u);  // the range's, untouched
  EXPECT_EQ(rows[1].stack_id, 3u);
  EXPECT_EQ(rows[1].bytes, 80u);
}

TEST(RowFilter, SizeBinSumsTheStacksOfAGroupedRow) {
  // Stacks 7 and 9 are one row (7) when grouped by function.
  std::vector<analysis::SiteStats> rows = {Site(7, 10, 1000), Site(8, 1, 48)};
  std::vector<analysis::SizeBinSite> bin = {{7, 2, 100}, {9, 3, 150}};
  RestrictToSizeBin(rows, bin, [](uint32_t id) { return id == 9 ? 7u : id; });
  ASSERT_EQ(rows.size(), 1u);
  EXPECT_EQ(rows[0].stack_id, 7u);
  EXPECT_EQ(rows[0].allocations, 5u);
  EXPECT_EQ(rows[0].bytes, 250u);
}

}  // namespace
}  // namespace memframe::viewer
