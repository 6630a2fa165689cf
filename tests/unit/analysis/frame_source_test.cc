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
  EXPECT_EQ(ResolveFrameSource(s), "glfwSwapBuffers");
  ASSERT_EQ(s.events.size(), 4u);
  EXPECT_EQ(s.events[1].ticks, 3u);
  EXPECT_EQ(s.events[2].address, 1u);  // the present's FRAME_END stays
  EXPECT_EQ(s.events[3].frame, 1u);
}

TEST(FrameSource, TheEntryPointWithMostFramesDrivesTheOthersMerge) {
  // GLFW swaps once through glXSwapBuffers inside glfwCreateWindow, then
  // the game presents with glfwSwapBuffers.
  Stream s = WithMarkers();
  s.markers[2] = "glXSwapBuffers";
  s.events = {Ev(1, kFrameEnd, 2, 0, 0), Ev(2, kAlloc, 0x10, 8, 1), Ev(3, kFrameEnd, 1, 1, 1),
              Ev(4, kAlloc, 0x20, 8, 2), Ev(5, kFrameEnd, 1, 2, 2), Ev(6, kAlloc, 0x30, 8, 3)};
  EXPECT_EQ(ResolveFrameSource(s), "glfwSwapBuffers");
  ASSERT_EQ(s.events.size(), 5u);
  EXPECT_EQ(s.events[0].frame, 0u);  // the allocation before the first game frame ends
  EXPECT_EQ(s.events[1].size, 0u);   // the first glfwSwapBuffers ends frame 0
  EXPECT_EQ(s.events[2].frame, 1u);
  EXPECT_EQ(s.events[3].size, 1u);
  EXPECT_EQ(s.events[4].frame, 2u);
}

TEST(FrameSource, WithoutAnyPresentSlicesBecomeTheFrames) {
  Stream s = WithMarkers();
  s.events = {Ev(1, kAlloc, 0x10, 8, 0), Ev(2, kFrameEnd, 12, 0, 0), Ev(3, kAlloc, 0x20, 8, 0),
              Ev(4, kAlloc, 0x30, 8, 0), Ev(5, kFrameEnd, 12, 1, 0), Ev(6, kAlloc, 0x40, 8, 0)};
  EXPECT_EQ(ResolveFrameSource(s), kTimeSliceMarker);
  ASSERT_EQ(s.events.size(), 6u);
  EXPECT_EQ(s.events[0].frame, 0u);
  EXPECT_EQ(s.events[1].frame, 0u);
  EXPECT_EQ(s.events[1].size, 0u);
  EXPECT_EQ(s.events[2].frame, 1u);
  EXPECT_EQ(s.events[3].frame, 1u);
  EXPECT_EQ(s.events[4].size, 1u);
  EXPECT_EQ(s.events[5].frame, 2u);
}

TEST(FrameSource, CaptureWithoutFramesIsOneFrame) {
  Stream s;
  s.events = {Ev(1, kAlloc, 0x10, 8, 0), Ev(2, kAlloc, 0x20, 8, 0)};
  EXPECT_EQ(ResolveFrameSource(s), "");
  EXPECT_EQ(s.events.size(), 2u);
  EXPECT_EQ(s.events[1].frame, 0u);
}

}  // namespace
}  // namespace memframe::analysis
