// The chrome-json and perfetto exports of a capture made by hand: frame
// times, the presenting thread, a marker's instant and the heap profile at
// the marker and at the end.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "load_test_capture.h"
#include "memframe/report/export.h"
#include "protos/perfetto/trace/trace.pb.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;

class TraceExportsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    testing::TestCapture tc;
    tc.Thread(42, "main");
    tc.Thread(43, "loader");
    tc.Marker(1, "glXSwapBuffers");
    tc.Marker(2, "boss fight");
    tc.Stack(7, {0x1234});
    // Ticks are nanoseconds here: Hello's pair puts tick 1000 at 1 ms.
    tc.Batch(42, {Alloc(2000, 0, 0x1000, 100, 7, 10), FrameEnd(3000, 0), Alloc(4000, 1, 0x2000, 50, 7, 20),
                  Free(4500, 1, 0x1000, 5), testing::Marker(5000, 1, 2), FrameEnd(6000, 1)});
    tc.Batch(43, {Alloc(5500, 1, 0x3000, 30, 7)});
    tc.End();
    capture_ = testing::LoadTestCapture(tc, "trace_exports.mfc");
    heap_ = AnalyzeHeap(capture_.main);
  }

  Capture capture_;
  HeapAnalysis heap_;
};

TEST_F(TraceExportsTest, ChromeJsonPlacesFramesAndMarkersInTime) {
  Symbolizer symbolizer(capture_.main.modules);
  const nlohmann::json trace = nlohmann::json::parse(ChromeTraceJson(capture_, heap_, symbolizer));
  std::vector<nlohmann::json> frames, markers;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] == "X" && e["cat"] == "frame") frames.push_back(e);
    if (e["ph"] == "i") markers.push_back(e);
  }
  ASSERT_EQ(frames.size(), 2u);
  // Frame 0 from the first event (tick 2000 = 1001 us) to its end at 1002 us;
  // frame 1 from there to its own end.
  EXPECT_DOUBLE_EQ(frames[0]["ts"].get<double>(), 1001.0);
  EXPECT_DOUBLE_EQ(frames[0]["dur"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(frames[1]["ts"].get<double>(), 1002.0);
  EXPECT_DOUBLE_EQ(frames[1]["dur"].get<double>(), 3.0);
  EXPECT_EQ(frames[1]["tid"], 42);
  EXPECT_EQ(frames[1]["args"]["allocations"], 2);
  EXPECT_EQ(frames[1]["args"]["bytes_allocated"], 80);
  EXPECT_EQ(frames[1]["args"]["live_bytes"], 80);
  ASSERT_EQ(markers.size(), 1u);
  EXPECT_EQ(markers[0]["name"], "boss fight");
  EXPECT_EQ(markers[0]["tid"], 42);
  EXPECT_DOUBLE_EQ(markers[0]["ts"].get<double>(), 1004.0);
  EXPECT_EQ(markers[0]["args"]["frame"], 1);
}

TEST_F(TraceExportsTest, PerfettoHasAHeapProfileAtTheMarkerAndAtTheEnd) {
  Symbolizer symbolizer(capture_.main.modules);
  perfetto::protos::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(PerfettoTrace(capture_, heap_, symbolizer)));
  std::vector<const perfetto::protos::TracePacket*> profiles;
  std::string instant;
  for (const auto& p : trace.packet()) {
    if (p.has_profile_packet()) profiles.push_back(&p);
    if (p.has_track_event() && p.track_event().type() == perfetto::protos::TrackEvent::TYPE_INSTANT)
      instant = p.track_event().name() + "@" + std::to_string(p.timestamp());
  }
  EXPECT_EQ(instant, "boss fight@1004000");
  ASSERT_EQ(profiles.size(), 2u);
  struct Expected {
    uint64_t timestamp, allocs, allocated, frees, freed;
  };
  const Expected expected[] = {{1004000, 2, 150, 1, 100}, {1005000, 3, 180, 1, 100}};  // the end: the last event, frame 1's end
  for (size_t i = 0; i < 2; ++i) {
    const auto& dump = profiles[i]->profile_packet().process_dumps(0);
    EXPECT_EQ(profiles[i]->timestamp(), expected[i].timestamp) << i;
    EXPECT_EQ(dump.pid(), 42u);
    ASSERT_EQ(dump.samples_size(), 1) << i;
    EXPECT_EQ(dump.samples(0).alloc_count(), expected[i].allocs) << i;
    EXPECT_EQ(dump.samples(0).self_allocated(), expected[i].allocated) << i;
    EXPECT_EQ(dump.samples(0).free_count(), expected[i].frees) << i;
    EXPECT_EQ(dump.samples(0).self_freed(), expected[i].freed) << i;
    EXPECT_EQ(profiles[i]->profile_packet().callstacks_size(), 1);
  }
}

}  // namespace
}  // namespace memframe::analysis
