// NameLookAlikes on stacks as a game shipped without debug info
// gives them (seen on Extreme Tux Racer's SFML audio thread): rows whose
// frames have the same names all the way out and differ only in where,
// inside one function, a call was made. The rows must still read apart.
#include <gtest/gtest.h>

#include "memframe/analysis/look_alikes.h"

namespace memframe::analysis {
namespace {

constexpr const char* kAudio = "/usr/lib/x86_64-linux-gnu/libsfml-audio.so.2.5";

SourceFrame Frame(const char* function, uint64_t module_offset, const char* file = "", uint32_t line = 0) {
  SourceFrame f;
  f.function = function;
  f.module = kAudio;
  f.module_offset = module_offset;
  f.address = 0x7f0000000000 + module_offset;
  f.file = file;
  f.line = line;
  return f;
}

using Stack = std::vector<SourceFrame>;

std::vector<LookAlikeName> Name(const std::vector<Stack>& stacks) {
  std::vector<const Stack*> pointers;
  for (const Stack& s : stacks) pointers.push_back(&s);
  return NameLookAlikes(pointers);
}

TEST(LookAlikes, CallersOfTheSameNameAreToldApartByWhereTheCallIs) {
  // Same function, same first caller; the second callers share a name but
  // call from two places (no line information).
  const std::vector<Stack> stacks = {
      Stack({Frame("libsfml-audio.so.2.5+0xa76b", 0xa76b), Frame("sf::SoundSource::getStatus() const", 0xf24e),
            Frame("sf::SoundStream::streamData()", 0x10493)}),
      Stack({Frame("libsfml-audio.so.2.5+0xa76b", 0xa76b), Frame("sf::SoundSource::getStatus() const", 0xf24e),
            Frame("sf::SoundStream::streamData()", 0x105ba)}),
      Stack({Frame("libsfml-audio.so.2.5+0xa76b", 0xa76b), Frame("sf::SoundStream::streamData()", 0x104bd)}),
  };
  std::vector<LookAlikeName> names = Name(stacks);
  EXPECT_EQ(names[0].via, "sf::SoundSource::getStatus() const <- sf::SoundStream::streamData() (libsfml-audio.so.2.5+0x10493)");
  EXPECT_EQ(names[1].via, "sf::SoundSource::getStatus() const <- sf::SoundStream::streamData() (libsfml-audio.so.2.5+0x105ba)");
  EXPECT_EQ(names[2].via, "sf::SoundStream::streamData()");
  EXPECT_EQ(names[0].location, "");
}

TEST(LookAlikes, OneFunctionAllocatingFromTwoPlacesGetsItsPlaceAsLocation) {
  const std::vector<Stack> stacks = {
      Stack({Frame("sf::SoundStream::streamData()", 0x10493), Frame("worker", 0x2000)}),
      Stack({Frame("sf::SoundStream::streamData()", 0x105ba), Frame("worker", 0x2000)}),
  };
  std::vector<LookAlikeName> names = Name(stacks);
  EXPECT_EQ(names[0].location, "libsfml-audio.so.2.5+0x10493");
  EXPECT_EQ(names[1].location, "libsfml-audio.so.2.5+0x105ba");
  EXPECT_EQ(names[0].via, "");
  EXPECT_EQ(names[1].via, "");
}

TEST(LookAlikes, WithLinesTheLineTellsAndAddressesOfOneLineDoNot) {
  // Two calls on one line are one place to a reader: no look-alike there.
  const std::vector<Stack> stacks = {
      Stack({Frame("Draw()", 0x100, "render.cpp", 40), Frame("Frame()", 0x200, "main.cpp", 10)}),
      Stack({Frame("Draw()", 0x100, "render.cpp", 40), Frame("Frame()", 0x230, "main.cpp", 12)}),
      Stack({Frame("Draw()", 0x100, "render.cpp", 40), Frame("Frame()", 0x240, "main.cpp", 12),
            Frame("Loop()", 0x300, "main.cpp", 50)}),
  };
  std::vector<LookAlikeName> names = Name(stacks);
  EXPECT_EQ(names[0].via, "Frame() (main.cpp:10)");
  // Rows 1 and 2 are the same place at depth 1, then row 1 has no frame:
  // its via stops at what it has.
  EXPECT_EQ(names[1].via, "Frame() (main.cpp:12)");
  EXPECT_EQ(names[2].via, "Frame() (main.cpp:12) <- Loop()");
  EXPECT_EQ(names[0].location, "render.cpp:40");
}

TEST(LookAlikes, OnlyRowsThatWouldPrintAlikeGetCallers) {
  const std::vector<Stack> stacks = {
      {},
      Stack({Frame("Draw()", 0x100, "render.cpp", 40), Frame("Frame()", 0x200, "main.cpp", 10)}),
      Stack({Frame("Load()", 0x500, "level.cpp", 7), Frame("Frame()", 0x200, "main.cpp", 10)}),
      // Same as row 1 for three callers, apart at the fourth.
      Stack({Frame("Tick()", 0x600), Frame("A()", 0x610), Frame("B()", 0x620), Frame("C()", 0x630),
             Frame("D()", 0x640)}),
      Stack({Frame("Tick()", 0x600), Frame("A()", 0x610), Frame("B()", 0x620), Frame("C()", 0x630),
             Frame("E()", 0x650)}),
  };
  std::vector<LookAlikeName> names = Name(stacks);
  EXPECT_EQ(names[0].location, "");
  EXPECT_EQ(names[0].via, "");
  EXPECT_EQ(names[1].location, "render.cpp:40");
  EXPECT_EQ(names[1].via, "");
  EXPECT_EQ(names[2].via, "");
  EXPECT_EQ(names[3].via, "A() <- B() <- C() <- ...");
  EXPECT_EQ(names[4].via, "A() <- B() <- C() <- ...");
}

TEST(LookAlikes, ShortenViaKeepsTheCallerThatTellsAtEveryLength) {
  const std::string via = "sf::SoundSource::getStatus() const <- sf::SoundStream::streamData() (lib.so+0x10493)";
  const std::string last = "sf::SoundStream::streamData() (lib.so+0x10493)";  // 46 characters
  EXPECT_EQ(ShortenVia(via, via.size()), via);
  EXPECT_EQ(ShortenVia(via, 60), "... <- " + last);
  EXPECT_EQ(ShortenVia(via, 53), "... <- " + last);
  for (size_t max = 16; max < via.size(); ++max) {
    std::string shown = ShortenVia(via, max);
    EXPECT_LE(shown.size(), max) << max;
    // The end of the caller that tells, its place, is always there.
    EXPECT_EQ(shown.substr(shown.size() - 8), "0x10493)") << max;
  }
  // One caller: its end, with the place, stays.
  EXPECT_EQ(ShortenVia(last, 20), "... (lib.so+0x10493)");
  // Past three callers the telling one is not named: the start is kept.
  EXPECT_EQ(ShortenVia("A() <- B() <- C() <- ...", 16), "A() <- B() <-...");
}

TEST(LookAlikes, ThousandsOfDriverSitesAreNamedByTheirCallers) {
  // A driver allocating under one game call from 3,000 stacks that part at
  // the second caller (seen on Neverball under llvmpipe): more than the
  // pairwise limit, still named exactly, and without n^2 steps.
  std::vector<Stack> stacks;
  for (uint64_t i = 0; i < 3000; ++i) {
    stacks.push_back(Stack({Frame("swrast_dri.so+0x10", 0x10), Frame("draw", 0x20, "render.cpp", 62),
                            Frame("level", 0x1000 + i, "level.cpp", static_cast<uint32_t>(100 + i))}));
  }
  stacks.push_back(Stack({Frame("swrast_dri.so+0x10", 0x10), Frame("other", 0x30, "hud.cpp", 5)}));
  std::vector<LookAlikeName> names = Name(stacks);
  ASSERT_EQ(names.size(), 3001u);
  EXPECT_EQ(names[0].via, "draw <- level (level.cpp:100)");
  EXPECT_EQ(names[2999].via, "draw <- level (level.cpp:3099)");
  EXPECT_EQ(names[3000].via, "other");
}

}  // namespace
}  // namespace memframe::analysis
