#include "elide.h"

#include <gtest/gtest.h>

#include <set>

namespace memframe::viewer {
namespace {

// One pixel a byte: widths are character counts.
float Chars(std::string_view text) { return static_cast<float>(text.size()); }

TEST(ElideMiddle, KeepsBothEnds) {
  EXPECT_EQ(ElideMiddle("DrawGameplay", 12, Chars), "DrawGameplay");  // fits
  // 20 wide: 17 for text, 10 (60%) for the tail, 7 for the head.
  EXPECT_EQ(ElideMiddle("swrast_dri.so (via DrawGameplay render.cpp:65)", 20, Chars), "swrast_...er.cpp:65)");
  EXPECT_EQ(ElideMiddle("a" + std::string(30, 'b') + "cd", 10, Chars), "abb...bbcd");
}

TEST(ElideMiddle, NeverCutsInsideACharacter) {
  // "é" is two bytes: a cut lands before or after it, never between.
  const std::string text = "caf\xC3\xA9-caf\xC3\xA9-caf\xC3\xA9-caf\xC3\xA9";
  for (float w = 4; w < 20; ++w) {
    const std::string shown = ElideMiddle(text, w, Chars);
    for (size_t i = 0; i + 1 < shown.size(); ++i) {
      const bool lead = static_cast<unsigned char>(shown[i]) == 0xC3;
      if (lead) {
        EXPECT_EQ(static_cast<unsigned char>(shown[i + 1]), 0xA9) << shown;
      }
    }
    EXPECT_NE(static_cast<unsigned char>(shown.back()), 0xC3) << shown;
  }
}

TEST(ElideMiddle, KeepsAGivenCharacter) {
  const std::string text = "0123456789abcdefghijklmnopqrstuvwxyz";  // 36
  // Near the end: in the tail, the rest of the room to the head.
  EXPECT_EQ(ElideMiddle(text, 15, Chars, 27), "012...rstuvwxyz");
  // Near the start: in the head, the rest of the room to the tail.
  EXPECT_EQ(ElideMiddle(text, 15, Chars, 8), "012345678...xyz");
  // In the middle, too far from both ends for 12 columns: the start, and a
  // window from just before it.
  EXPECT_EQ(ElideMiddle(text, 12, Chars, 18), "01...hijk...");
}

TEST(ElideApart, LookAlikesThatDifferAtTheEndStayApart) {
  // The chromium-bsu rows the reviewer saw: one module, one caller, the
  // callers' offsets at the very end.
  const std::vector<std::string> names = {
      "libfribidi.so.0 (via chromium-bsu+0x26d10) <- chromium-bsu+0x1e004",
      "libfribidi.so.0 (via chromium-bsu+0x26d10) <- chromium-bsu+0x1e248",
      "libfribidi.so.0 (via chromium-bsu+0x26d10) <- chromium-bsu+0x1e263"};
  // A cut from the right reads the same for all three: the old cell.
  for (const std::string& n : names) EXPECT_EQ(n.substr(0, 27), names[0].substr(0, 27));
  const std::vector<std::string> shown = ElideApart(names, 30, Chars);
  EXPECT_EQ(std::set<std::string>(shown.begin(), shown.end()).size(), 3u);
  for (const std::string& s : shown) {
    EXPECT_LE(s.size(), 30u) << s;
    EXPECT_EQ(s.rfind("libf", 0), 0u) << s;  // what it is still starts the cell
  }
}

TEST(ElideApart, TextsThatDifferInTheMiddleStayApart) {
  const std::string head = "std::vector<Particle, Allocator<", tail = ">>::_M_realloc_insert(iterator, Particle const&)";
  const std::vector<std::string> names = {head + "Frame>" + tail, head + "Level>" + tail, head + "Frame>" + tail};
  const std::vector<std::string> shown = ElideApart(names, 40, Chars);
  EXPECT_NE(shown[0], shown[1]);
  EXPECT_EQ(shown[0], shown[2]);  // the same text: the same cell
  EXPECT_NE(shown[1].find("Allocator<L"), std::string::npos) << shown[1];
  for (const std::string& s : shown) EXPECT_LE(s.size(), 40u) << s;
}

}  // namespace
}  // namespace memframe::viewer
