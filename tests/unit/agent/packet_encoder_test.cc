// The agent writes protobuf by hand; these tests decode what it writes with
// libprotobuf, so the encoder and memframe.proto cannot drift apart.
#include "writer/packet_encoder.h"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

#include "buffer/thread_buffer.h"
#include "capture/recorder.h"
#include "capture/recursion_guard.h"
#include "capture/stack_table.h"
#include "memframe.pb.h"
#include "memframe/event_codec.h"
#include "memframe/format.h"
#include "memframe/varint.h"
#include "encoder_fixture.h"

namespace memframe::agent {
namespace {


TEST_F(EncoderTest, HelloRoundTrips) {
  const char cmdline[] = "game\0--frames\0" "10";
  HelloInfo h{};
  h.pid = 42;
  h.ppid = 7;
  h.executable = "/usr/games/game";
  h.cmdline = cmdline;
  h.cmdline_size = sizeof(cmdline);
  h.start_ticks = 123456789012345ull;
  h.start_monotonic_ns = 5;
  h.start_unix_ns = 6;
  h.max_stack_depth = 32;
  EncodeHello(sink_, h);
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 1u);
  const wire::Hello& hello = packets[0].hello();
  EXPECT_EQ(hello.protocol_version(), wire::kProtocolVersion);
  EXPECT_EQ(hello.pid(), 42u);
  EXPECT_EQ(hello.ppid(), 7u);
  EXPECT_EQ(hello.executable(), "/usr/games/game");
  ASSERT_EQ(hello.argv_size(), 3);
  EXPECT_EQ(hello.argv(0), "game");
  EXPECT_EQ(hello.argv(1), "--frames");
  EXPECT_EQ(hello.argv(2), "10");
  EXPECT_EQ(hello.start_ticks(), 123456789012345ull);
  EXPECT_EQ(hello.max_stack_depth(), 32u);
  EXPECT_EQ(hello.agent_version(), MEMFRAME_AGENT_VERSION);
}

TEST_F(EncoderTest, EventBatchColumnsDecodeToTheEvents) {
  // Addresses going down as well as up, frames advancing, a large size.
  std::vector<Event> events = {
      {1000, 0x7f0000001000, 48, 3, 25, PackFrameKind(10, wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_NEW, 0))},
      {1005, 0x7f0000000800, 0, 0, 9, PackFrameKind(10, wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, 0))},
      {1300, 0x55aa00000000, 1ull << 40, 7, 70000,
       PackFrameKind(11, wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, wire::kFlagCalloc))},
      {1301, 1, 11, 0, 0, PackFrameKind(12, wire::PackKind(wire::EVENT_FRAME_END, 0, 0))},
  };
  test_support::EncodeEvents(sink_, 777, events.data(), static_cast<int>(events.size()), 5);
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 1u);
  const wire::EventBatch& b = packets[0].events();
  EXPECT_EQ(b.thread_id(), 777u);
  EXPECT_EQ(b.dropped(), 5u);
  ASSERT_EQ(b.kind_size(), 4);
  EXPECT_EQ(b.tick_shift(), kTickShift);
  // The FREE's size and stack are 0: their columns are left out.
  EXPECT_EQ(b.size_size(), 3);
  EXPECT_EQ(b.stack_id_size(), 3);
  EXPECT_EQ(b.free_size_size(), 0);
  EXPECT_EQ(b.free_stack_size(), 0);
  EXPECT_EQ(b.ticks_gap_size(), 4);
  EXPECT_EQ(b.frame_delta_size(), 4);
  EXPECT_EQ(b.duration_ticks_size(), 4);
  EXPECT_EQ(b.ticks_delta_size(), 0);  // version 1's column
  // No block is known yet: every address is spelled out.
  EXPECT_EQ(b.free_ref_size(), 1);
  EXPECT_EQ(b.reuse_ref_size(), 2);
  EXPECT_EQ(b.address_delta_size(), 4);
  auto decoded = DecodeBatches(packets);
  ASSERT_EQ(decoded.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) ExpectSame(decoded[i], events[i], i);
}

// A private heap's block (Windows): its heap's id in a ring record of its
// own before the event, then in the heap column, one entry per ALLOC; the
// column is left out of a batch whose blocks name no heap.
TEST_F(EncoderTest, PrivateHeapIdsRoundTrip) {
  const uint32_t alloc = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, 0);
  const uint32_t free = wire::PackKind(wire::EVENT_FREE, wire::FAMILY_MALLOC, 0);
  const Event events[] = {{100, 0x1000, 32, 1, 0, PackFrameKind(1, alloc)},
                          {110, 0x2000, 64, 1, 0, PackFrameKind(1, alloc)},
                          {120, 0x1000, 0, 0, 0, PackFrameKind(1, free)},
                          {130, 0x3000, 96, 2, 0, PackFrameKind(2, alloc)}};
  const uint32_t heaps[] = {0, 7, 0, 3};
  std::vector<RingRecord> records(16);
  RecordPacker packer;
  uint64_t at = 0;
  for (size_t i = 0; i < 4; ++i) {
    const uint32_t n = packer.Count(events[i], heaps[i]);
    packer.Write(events[i], records.data(), at, UINT64_MAX, heaps[i]);
    at += n;
  }
  RecordReader reader;
  EncodeEventBatch(sink_, 5, records.data(), static_cast<int>(at), 0, &reader);
  test_support::EncodeEvents(sink_, 5, events, 1, 0);  // no heap: no column
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 2u);
  EXPECT_EQ(packets[0].events().heap_size(), 3);
  EXPECT_EQ(packets[1].events().heap_size(), 0);
  auto decoded = DecodeBatches(packets);
  ASSERT_EQ(decoded.size(), 5u);
  for (size_t i = 0; i < 4; ++i) {
    ExpectSame(decoded[i], events[i], i);
    EXPECT_EQ(decoded[i].heap, heaps[i]) << i;
  }
  EXPECT_EQ(decoded[4].heap, 0u);
}

TEST_F(EncoderTest, FramesPast32BitsRoundTrip) {
  const uint32_t alloc = wire::PackKind(wire::EVENT_ALLOC, wire::FAMILY_MALLOC, wire::kFlagCustom);
  const uint64_t high = (1ull << 40) + 5;
  std::vector<Event> events = {
      {1, 0x1000, 8, 0, 0, PackFrameKind(high, alloc)},
      {2, 0x1000, 8, 0, 0, PackFrameKind(high + UINT32_MAX, alloc)},  // the largest delta that fits
      {3, 0x1000, 8, 0, 0, PackFrameKind(high + UINT32_MAX + (1ull << 32), alloc)},  // one that does not
      {4, 0x1000, 8, 0, 0, PackFrameKind(high + UINT32_MAX + (1ull << 32), alloc)},
      {5, 0x1000, 8, 0, 0, PackFrameKind((1ull << 56) - 1, alloc)},  // the largest frame an Event holds
  };
  EXPECT_EQ(events[4].frame(), (1ull << 56) - 1);
  EXPECT_EQ(events[4].kind(), alloc);
  test_support::EncodeEvents(sink_, 9, events.data(), static_cast<int>(events.size()), 4);
  auto packets = Receive();
  // The uint32 frame_delta column cannot carry the jumps: three packets.
  ASSERT_EQ(packets.size(), 3u);
  EXPECT_EQ(packets[0].events().base_frame(), high);
  EXPECT_EQ(packets[0].events().dropped(), 4u);
  EXPECT_EQ(packets[0].events().kind_size(), 2);
  EXPECT_EQ(packets[1].events().base_frame(), high + UINT32_MAX + (1ull << 32));
  EXPECT_EQ(packets[1].events().kind_size(), 2);
  EXPECT_EQ(packets[1].events().dropped(), 0u);
  auto decoded = DecodeBatches(packets);
  ASSERT_EQ(decoded.size(), events.size());
  for (size_t i = 0; i < events.size(); ++i) {
    EXPECT_EQ(decoded[i].frame, events[i].frame()) << i;
    EXPECT_EQ(decoded[i].ticks, SentTicks(events[i])) << i;
    EXPECT_EQ(decoded[i].kind, alloc) << i;
  }
}

TEST_F(EncoderTest, RecorderFrameCounterPast32Bits) {
  // The recorder's frame counter, set just below 2^32, ends two frames
  // through the annotation API; the FRAME_ENDs and a marker of the calling
  // thread go through its buffer and the encoder like the writer sends them.
  ConfigureCapture(1, /*stacks=*/false, false);
  const uint64_t start = (1ull << 32) - 1;
  SetFrameCounterForTesting(start);
  g_recording.store(true);
  ThreadBuffer* buffer = CurrentThreadBuffer();
  ASSERT_NE(buffer, nullptr);
  const uint64_t head = buffer->tail.load();
  AnnotatedFrameMark();  // ends 2^32 - 1
  AnnotatedFrameMark();  // ends 2^32
  {
    RecursionGuard guard;
    RecordMarker(guard, "past 32 bits");
  }
  g_recording.store(false);
  EXPECT_EQ(CurrentFrame(), start + 2);
  const uint64_t tail = buffer->tail.load();
  std::vector<RingRecord> records;
  for (uint64_t i = head; i < tail; ++i) records.push_back(buffer->ring[i & (kRingRecords - 1)]);
  buffer->head.store(tail);
  // The frame record before each event (the ring's own: ring_record.h).
  RecordReader reader = buffer->reader;
  std::vector<Event> events;
  for (const RingRecord& r : records)
    if (Event e; reader.Read(r, &e)) events.push_back(e);
  ASSERT_EQ(events.size(), 3u);
  EXPECT_EQ(events[0].frame(), start);
  EXPECT_EQ(events[1].frame(), start + 1);
  EXPECT_EQ(events[2].frame(), start + 2);

  RecordReader writers = buffer->reader;
  EXPECT_EQ(EncodeEventBatch(sink_, 1, records.data(), static_cast<int>(records.size()), 0, &writers), 3u);
  auto decoded = DecodeBatches(Receive());
  ASSERT_EQ(decoded.size(), 3u);
  EXPECT_EQ(decoded[0].kind, wire::PackKind(wire::EVENT_FRAME_END, 0, 0));
  EXPECT_EQ(decoded[0].frame, start);
  EXPECT_EQ(decoded[0].size, start);  // FRAME_END's size: the number of the frame that ended
  EXPECT_EQ(decoded[1].frame, start + 1);
  EXPECT_EQ(decoded[1].size, start + 1);
  EXPECT_EQ(decoded[2].kind, wire::PackKind(wire::EVENT_MARKER, 0, 0));
  EXPECT_EQ(decoded[2].frame, start + 2);
}

TEST_F(EncoderTest, StackDefsCarryTheInternedFrames) {
  ASSERT_TRUE(InitStackTable());
  uint64_t frames_a[] = {0x401000, 0x402000, 0x403000};
  uint64_t frames_b[] = {0xffffffffffff0000ull};
  uint32_t ids[] = {InternStack(frames_a, 3), InternStack(frames_b, 1)};
  EncodeStackDefs(sink_, ids, 2);
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 1u);
  const wire::StackDefs& defs = packets[0].stacks();
  ASSERT_EQ(defs.stacks_size(), 2);
  EXPECT_EQ(defs.stacks(0).id(), ids[0]);
  ASSERT_EQ(defs.stacks(0).frames_size(), 3);
  EXPECT_EQ(defs.stacks(0).frames(2), 0x403000u);
  EXPECT_EQ(defs.stacks(1).id(), ids[1]);
  EXPECT_EQ(defs.stacks(1).frames(0), 0xffffffffffff0000ull);
}

TEST_F(EncoderTest, SmallPacketsRoundTrip) {
  EncodeClockSync(sink_, 99, 100);
  EncodeMarkerDefs(sink_, 1, 3);
  EncodeThreadInfo(sink_, 12, "render", 77, false);
  EncodeThreadInfo(sink_, 12, nullptr, 0, true);
  EncodeEndOfStream(sink_, 1000, 3, 60, "exit", 7);
  auto packets = Receive();
  ASSERT_EQ(packets.size(), 5u);
  EXPECT_EQ(packets[0].clock().ticks(), 99u);
  EXPECT_EQ(packets[0].clock().monotonic_ns(), 100u);
  ASSERT_GE(packets[1].markers().markers_size(), 1);
  EXPECT_EQ(packets[1].markers().markers(0).name(), "glfwSwapBuffers");
  EXPECT_EQ(packets[2].thread().name(), "render");
  EXPECT_EQ(packets[2].thread().first_ticks(), 77u);
  EXPECT_FALSE(packets[2].thread().exited());
  EXPECT_TRUE(packets[3].thread().exited());
  EXPECT_EQ(packets[4].end().events(), 1000u);
  EXPECT_EQ(packets[4].end().dropped(), 3u);
  EXPECT_EQ(packets[4].end().last_frame(), 60u);
  EXPECT_EQ(packets[4].end().reason(), "exit");
  EXPECT_EQ(packets[4].end().unrecorded_in_signal_handlers(), 7u);
}

TEST_F(EncoderTest, FlushFailsOnceThePeerIsGone) {
  close(fds_[1]);
  fds_[1] = -1;
  EncodeClockSync(sink_, 1, 2);
  EXPECT_FALSE(sink_.Flush());
  EXPECT_FALSE(sink_.connected());
}

}  // namespace
}  // namespace memframe::agent
