// NameCallersOfLookAlikes on stacks as a game shipped without debug info
// gives them (seen on Extreme Tux Racer's SFML audio thread): rows whose
// frames have the same names all the way out and differ only in where,
// inside one function, a call was made. The rows must still read apart.
#include <gtest/gtest.h>

#include "report_input.h"

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

SiteView View(std::vector<SourceFrame> stack) {
  SiteView v;
  v.stack = std::move(stack);
  v.function = v.stack.front().function;
  return v;
}

TEST(LookAlikes, CallersOfTheSameNameAreToldApartByWhereTheCallIs) {
  // Same function, same first caller; the second callers share a name but
  // call from two places (no line information).
  std::vector<SiteView> views = {
      View({Frame("libsfml-audio.so.2.5+0xa76b", 0xa76b), Frame("sf::SoundSource::getStatus() const", 0xf24e),
            Frame("sf::SoundStream::streamData()", 0x10493)}),
      View({Frame("libsfml-audio.so.2.5+0xa76b", 0xa76b), Frame("sf::SoundSource::getStatus() const", 0xf24e),
            Frame("sf::SoundStream::streamData()", 0x105ba)}),
      View({Frame("libsfml-audio.so.2.5+0xa76b", 0xa76b), Frame("sf::SoundStream::streamData()", 0x104bd)}),
  };
  NameCallersOfLookAlikes(views);
  EXPECT_EQ(views[0].via, "sf::SoundSource::getStatus() const <- sf::SoundStream::streamData() (libsfml-audio.so.2.5+0x10493)");
  EXPECT_EQ(views[1].via, "sf::SoundSource::getStatus() const <- sf::SoundStream::streamData() (libsfml-audio.so.2.5+0x105ba)");
  EXPECT_EQ(views[2].via, "sf::SoundStream::streamData()");
  EXPECT_EQ(views[0].location, "");
}

TEST(LookAlikes, OneFunctionAllocatingFromTwoPlacesGetsItsPlaceAsLocation) {
  std::vector<SiteView> views = {
      View({Frame("sf::SoundStream::streamData()", 0x10493), Frame("worker", 0x2000)}),
      View({Frame("sf::SoundStream::streamData()", 0x105ba), Frame("worker", 0x2000)}),
  };
  NameCallersOfLookAlikes(views);
  EXPECT_EQ(views[0].location, "libsfml-audio.so.2.5+0x10493");
  EXPECT_EQ(views[1].location, "libsfml-audio.so.2.5+0x105ba");
  EXPECT_EQ(views[0].via, "");
  EXPECT_EQ(views[1].via, "");
}

TEST(LookAlikes, WithLinesTheLineTellsAndAddressesOfOneLineDoNot) {
  // Two calls on one line are one place to a reader: no look-alike there.
  std::vector<SiteView> views = {
      View({Frame("Draw()", 0x100, "render.cpp", 40), Frame("Frame()", 0x200, "main.cpp", 10)}),
      View({Frame("Draw()", 0x100, "render.cpp", 40), Frame("Frame()", 0x230, "main.cpp", 12)}),
      View({Frame("Draw()", 0x100, "render.cpp", 40), Frame("Frame()", 0x240, "main.cpp", 12),
            Frame("Loop()", 0x300, "main.cpp", 50)}),
  };
  for (SiteView& v : views) v.location = "render.cpp:40";
  NameCallersOfLookAlikes(views);
  EXPECT_EQ(views[0].via, "Frame() (main.cpp:10)");
  // Rows 1 and 2 are the same place at depth 1, then row 1 has no frame:
  // its via stops at what it has.
  EXPECT_EQ(views[1].via, "Frame() (main.cpp:12)");
  EXPECT_EQ(views[2].via, "Frame() (main.cpp:12) <- Loop()");
}

}  // namespace
}  // namespace memframe::analysis
