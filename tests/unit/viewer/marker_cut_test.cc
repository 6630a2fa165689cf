// The cuts the viewer's snapshot diff uses (LiveSetAt from the live-set
// index's checkpoints) give the same live heap as the diff report's replay
// (LiveSetAt on the stream), at markers as at frames; and FindMarkerEvents
// lists every MARKER event where ResolveCut finds it.
#include <gtest/gtest.h>

#include <map>

#include "memframe/analysis/live_set_at.h"
#include "memframe/analysis/live_set_index.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::Marker;
using testing::ToEvent;

// 12 frames; each allocates two blocks and frees one of the previous frame's;
// "checkpoint" markers in frames 2, 5 and 9 (the first is the cut), "late" in
// frame 10, and a marker without a name in frame 11.
Stream MarkedStream() {
  Stream s;
  s.markers[7] = "checkpoint";
  s.markers[8] = "late";
  uint64_t t = 1;
  for (uint64_t f = 0; f < 12; ++f) {
    s.events.push_back(ToEvent(Alloc(++t, f, 0x1000 + f * 0x100, 10 + f, 1)));
    if (f == 2 || f == 5 || f == 9) s.events.push_back(ToEvent(Marker(++t, f, 7)));
    if (f == 10) s.events.push_back(ToEvent(Marker(++t, f, 8)));
    if (f == 11) s.events.push_back(ToEvent(Marker(++t, f, 99)));
    s.events.push_back(ToEvent(Alloc(++t, f, 0x8000 + f * 0x100, 100 + f, 2)));
    if (f > 0) s.events.push_back(ToEvent(Free(++t, f, 0x8000 + (f - 1) * 0x100)));
    s.events.push_back(ToEvent(FrameEnd(++t, f)));
  }
  return s;
}

std::map<uint64_t, uint64_t> Sizes(const LiveSet& live) {
  std::map<uint64_t, uint64_t> sizes;
  for (const auto& [address, block] : live.blocks()) sizes[address] = block.size;
  return sizes;
}

TEST(MarkerCut, IndexedCutsEqualTheReportsReplay) {
  Stream s = MarkedStream();
  FrameTable frames;
  for (uint64_t f = 0; f < 12; ++f) frames.frames.push_back({.frame = f});
  for (uint64_t interval : {1, 2, 3, 7, 1000}) {
    LiveSetIndex index = LiveSetIndex::Build(s, interval);
    for (std::string text : {"checkpoint", "late", "start", "end", "0", "4", "9", "11"}) {
      std::string error;
      auto cut = ResolveCut(s, text, frames, &error);
      ASSERT_TRUE(cut) << error;
      EXPECT_EQ(Sizes(LiveSetAt(s, index, *cut)), Sizes(LiveSetAt(s, *cut))) << text << " interval " << interval;
    }
  }
}

TEST(MarkerCut, MarkerEventsInOrderWithTheirFrames) {
  Stream s = MarkedStream();
  std::vector<MarkerEvent> markers = FindMarkerEvents(s);
  ASSERT_EQ(markers.size(), 5u);
  EXPECT_EQ(markers[0].name, "checkpoint");
  EXPECT_EQ(markers[0].frame, 2u);
  EXPECT_EQ(markers[2].frame, 9u);
  EXPECT_EQ(markers[3].name, "late");
  EXPECT_EQ(markers[4].name, "");  // an id without a name is still listed
  EXPECT_EQ(markers[4].frame, 11u);
  // The first of a name is where ResolveCut cuts.
  FrameTable frames;
  for (uint64_t f = 0; f < 12; ++f) frames.frames.push_back({.frame = f});
  std::string error;
  auto cut = ResolveCut(s, "checkpoint", frames, &error);
  ASSERT_TRUE(cut);
  EXPECT_EQ(cut->position, markers[0].position);
  EXPECT_EQ(s.events[markers[0].position].kind(), EventKind::kMarker);
}

}  // namespace
}  // namespace memframe::analysis
