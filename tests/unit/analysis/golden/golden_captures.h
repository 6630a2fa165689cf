// The synthetic golden captures (golden_test.cc, make_golden.cc): each is
// small and aimed at one part of the decoder. Their expected decoded result
// (NAME.json beside NAME.mfc) was written by golden_test with
// MEMFRAME_UPDATE_GOLDEN=1 and checked by hand against the comments here.
#pragma once

#include <unistd.h>

#include <fstream>
#include <functional>
#include <iterator>
#include <string>
#include <utility>
#include <vector>

#include "test_capture.h"

namespace memframe::testing {
// Three threads whose batches arrive out of order; equal ticks across
// threads (arrival order decides), a tick that goes backwards on thread 30
// (raised to 70), realloc/calloc flags, every family, a negative address
// delta, a MAP/UNMAP pair, a MARKER, time slices before the first present
// (dropped because the program presents), and two present entry points
// where glfwSwapBuffers ends most frames (glXSwapBuffers' one FRAME_END is
// dropped and the frames are renumbered).
inline TestCapture Interleaved() {
  TestCapture tc;
  tc.Recorder(false, 0);
  tc.Module("/opt/game", 0x400000, 0, 0x10000);
  tc.Stack(1, {0x401000, 0x402000});
  tc.Stack(2, {0x403000});
  tc.Marker(1, "glfwSwapBuffers");
  tc.Marker(2, "glXSwapBuffers");
  tc.Marker(3, "time slice");
  tc.Marker(4, "level_load_begin");
  tc.Thread(10, "main");
  tc.Thread(20, "worker");
  tc.Thread(30, "audio");
  tc.Clock(1000, 1000000);
  uint32_t map = wire::PackKind(wire::EVENT_MAP, wire::FAMILY_MMAP, 0);
  uint32_t unmap = wire::PackKind(wire::EVENT_UNMAP, wire::FAMILY_MMAP, 0);
  uint32_t marker = wire::PackKind(wire::EVENT_MARKER, 0, 0);
  tc.Batch(20, {Alloc(15, 0, 0x9000, 64, 2, 7), Alloc(40, 0, 0x8000, 32, 2, 8, 0, wire::FAMILY_NEW_ARRAY),
                Free(60, 1, 0x9000, 3, 0, wire::FAMILY_MALLOC)});
  tc.Batch(10, {FrameEnd(12, 0, 3), Alloc(20, 0, 0x1000, 100, 1, 5), FrameEnd(30, 0, 2),
                Alloc(40, 0, 0x1000, 0, 0, 0, 0),  // same tick as worker's: worker's batch came first
                Free(41, 1, 0x1000, 2, wire::kFlagRealloc), Alloc(42, 1, 0x2000, 200, 1, 6, wire::kFlagRealloc),
                {map, 0x7f0000000000, 1 << 20, 2, 43, 1, 9}, FrameEnd(50, 1, 1),
                {marker, 0, 4, 1, 55, 2, 0}, Alloc(56, 2, 0x3000, 48, 1, 4, wire::kFlagCalloc, wire::FAMILY_NEW),
                {unmap, 0x7f0000000000, 1 << 20, 0, 57, 2, 1}, FrameEnd(70, 2, 1)});
  tc.Batch(30, {Alloc(80, 2, 0x5000, 16, 2)});
  tc.Batch(30, {Alloc(65, 2, 0x5100, 16, 2)});  // a clock glitch: raised to 80
  tc.Clock(2000, 3000000);
  tc.End(17);
  tc.Recorder(true, 0);
  return tc;
}

// A program that never presents: the time slices are its frames.
inline TestCapture SlicesOnly() {
  TestCapture tc;
  tc.Marker(7, "time slice");
  tc.Batch(10, {Alloc(1, 0, 0x10, 8, 0), FrameEnd(2, 0, 7), Alloc(3, 0, 0x20, 8, 0), FrameEnd(4, 1, 7),
                Free(5, 0, 0x10)});
  tc.End(5);
  return tc;
}

// A parent and a followed child: the child has more events, so it is the
// stream analysed; the parent is listed.
inline TestCapture TwoProcesses() {
  TestCapture tc;
  tc.Batch(10, {Alloc(1, 0, 0x10, 8, 0)});
  wire::Packet hello;
  hello.mutable_hello()->set_protocol_version(testing::kTestBatchProtocol);
  hello.mutable_hello()->set_pid(43);
  hello.mutable_hello()->set_ppid(42);
  hello.mutable_hello()->set_executable("/opt/child");
  hello.mutable_hello()->set_start_ticks(5);
  hello.mutable_hello()->set_start_monotonic_ns(5);
  tc.Add(2, hello);
  tc.Add(2, TestCapture::BatchPacket(11, {Alloc(6, 0, 0x10, 8, 0), Free(7, 0, 0x10)}));
  return tc;
}

// A batch whose size column is one short: everything before it is kept,
// nothing after.
inline TestCapture CorruptBatch() {
  TestCapture tc;
  tc.Batch(10, {Alloc(1, 0, 0x10, 8, 0)});
  wire::Packet bad = TestCapture::BatchPacket(10, {Alloc(2, 0, 0x20, 8, 0), Alloc(3, 0, 0x30, 8, 0)});
  bad.mutable_events()->mutable_size()->RemoveLast();
  tc.Add(bad);
  tc.Batch(10, {Alloc(4, 0, 0x40, 8, 0)});
  return tc;
}

inline bool WriteTruncated(const std::string& path) {
  TestCapture tc;
  for (uint32_t i = 0; i < 4; ++i) tc.Batch(10, {Alloc(10 * i + 1, i, 0x100 + i, 16, 0), FrameEnd(10 * i + 2, i)});
  tc.End(8);
  if (!tc.Write(path)) return false;
  // Cut inside the zstd frame of the last record, which also drops the
  // empty frame that closes a complete file: the records flushed before it
  // survive.
  std::ifstream in(path, std::ios::binary);
  const std::string bytes((std::istreambuf_iterator<char>(in)), {});
  const size_t closing = bytes.rfind("\x28\xb5\x2f\xfd");
  return closing != std::string::npos && closing > 9 && truncate(path.c_str(), static_cast<off_t>(closing - 9)) == 0;
}

// name -> writer of NAME.mfc
inline std::vector<std::pair<std::string, std::function<bool(const std::string&)>>> GoldenCaptures() {
  return {
      {"interleaved_threads", [](const std::string& p) { return Interleaved().Write(p); }},
      {"time_slices_only", [](const std::string& p) { return SlicesOnly().Write(p); }},
      {"two_processes", [](const std::string& p) { return TwoProcesses().Write(p); }},
      {"corrupt_batch", [](const std::string& p) { return CorruptBatch().Write(p); }},
      {"truncated", WriteTruncated},
  };
}

}  // namespace memframe::testing

