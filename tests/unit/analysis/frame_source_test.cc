#include "memframe/analysis/frame_source.h"

#include <gtest/gtest.h>

namespace memframe::analysis {
namespace {

constexpr uint8_t kAlloc = 1, kFrameEnd = 3;

Event Ev(uint64_t ticks, uint8_t kind, uint64_t address, uint64_t size, uint32_t frame) {
  Event e;
  e.ticks = ticks;
  e.packed_kind = kind;
  e.address = address;
  e.size = size;
  e.frame = frame;
  return e;
}

Stream WithMarkers() {
  Stream s;
  s.markers[1] = "glfwSwapBuffers";
  s.markers[12] = kTimeSliceMarker;
  return s;
}

TEST(FrameSource, SlicesAreDroppedOnceTheProgramPresented) {
  Stream s = WithMarkers();
  s.events = {Ev(1, kAlloc, 0x10, 8, 0), Ev(2, kFrameEnd, 12, 0, 0), Ev(3, kAlloc, 0x20, 8, 0),
              Ev(4, kFrameEnd, 1, 0, 0), Ev(5, kAlloc, 0x30, 8, 1)};
  ResolveFrameSource(s);
  ASSERT_EQ(s.events.size(), 4u);
  EXPECT_EQ(s.events[1].ticks, 3u);
  EXPECT_EQ(s.events[2].address, 1u);  // the present's FRAME_END stays
  EXPECT_EQ(s.events[3].frame, 1u);    // frames are the agent's, untouched
}

TEST(FrameSource, WithoutAnyPresentSlicesBecomeTheFrames) {
  Stream s = WithMarkers();
  s.events = {Ev(1, kAlloc, 0x10, 8, 0), Ev(2, kFrameEnd, 12, 0, 0), Ev(3, kAlloc, 0x20, 8, 0),
              Ev(4, kAlloc, 0x30, 8, 0), Ev(5, kFrameEnd, 12, 1, 0), Ev(6, kAlloc, 0x40, 8, 0)};
  ResolveFrameSource(s);
  ASSERT_EQ(s.events.size(), 6u);
  EXPECT_EQ(s.events[0].frame, 0u);
  EXPECT_EQ(s.events[1].frame, 0u);
  EXPECT_EQ(s.events[1].size, 0u);
  EXPECT_EQ(s.events[2].frame, 1u);
  EXPECT_EQ(s.events[3].frame, 1u);
  EXPECT_EQ(s.events[4].size, 1u);
  EXPECT_EQ(s.events[5].frame, 2u);
}

TEST(FrameSource, CaptureWithoutSliceMarkerIsUntouched) {
  Stream s;
  s.markers[1] = "glfwSwapBuffers";
  s.events = {Ev(1, kAlloc, 0x10, 8, 0), Ev(2, kFrameEnd, 1, 0, 0)};
  ResolveFrameSource(s);
  EXPECT_EQ(s.events.size(), 2u);
}

}  // namespace
}  // namespace memframe::analysis
