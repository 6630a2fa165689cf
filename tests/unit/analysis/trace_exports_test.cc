// The chrome-json and perfetto exports of a capture made by hand: frame
// times, the presenting thread, a marker's instant and the heap profile at
// the marker and at the end; with GPU objects, their counters and the pprof
// profile's GPU sample types.
#include <gtest/gtest.h>

#include <map>

#include <nlohmann/json.hpp>

#include "load_test_capture.h"
#include "memframe/report/export.h"
#include "profile.pb.h"
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

// Frame 0 makes a 4,096-byte texture (stack 7); frame 1 deletes it and
// makes a 1,000-byte buffer, alive at the end.
void AddGpuObjects(Stream* stream) {
  stream->gpu_events = {testing::GpuObjectEvent(GpuOp::kStorage, GpuKind::kTexture, 1, 4096, 0, 7),
                        testing::GpuObjectEvent(GpuOp::kDelete, GpuKind::kTexture, 1, 0, 1, 7),
                        testing::GpuObjectEvent(GpuOp::kStorage, GpuKind::kBuffer, 1, 1000, 1, 7)};
}

TEST_F(TraceExportsTest, ChromeJsonCountsTheGpuBytesOfEachFrameByKind) {
  AddGpuObjects(&capture_.main);
  Symbolizer symbolizer(capture_.main.modules);
  const nlohmann::json trace = nlohmann::json::parse(ChromeTraceJson(capture_, heap_, symbolizer));
  std::vector<uint64_t> total;
  std::vector<nlohmann::json> by_kind;
  for (const auto& e : trace["traceEvents"]) {
    if (e["ph"] != "C") continue;
    if (e["name"] == "GPU live bytes") total.push_back(e["args"]["value"]);
    if (e["name"] == "GPU live bytes by kind") by_kind.push_back(e["args"]);
  }
  EXPECT_EQ(total, (std::vector<uint64_t>{4096, 1000}));
  ASSERT_EQ(by_kind.size(), 2u);
  EXPECT_EQ(by_kind[0], (nlohmann::json{{"buffer", 0}, {"texture", 4096}}));
  EXPECT_EQ(by_kind[1], (nlohmann::json{{"buffer", 1000}, {"texture", 0}}));
}

TEST_F(TraceExportsTest, PerfettoHasAGpuCounterTrackAndOnePerKind) {
  AddGpuObjects(&capture_.main);
  Symbolizer symbolizer(capture_.main.modules);
  perfetto::protos::Trace trace;
  ASSERT_TRUE(trace.ParseFromString(PerfettoTrace(capture_, heap_, symbolizer)));
  std::map<uint64_t, std::string> names;
  std::map<std::string, std::vector<int64_t>> values;
  for (const auto& p : trace.packet()) {
    if (p.has_track_descriptor() && p.track_descriptor().has_counter())
      names[p.track_descriptor().uuid()] = p.track_descriptor().name();
    if (p.has_track_event() && p.track_event().type() == perfetto::protos::TrackEvent::TYPE_COUNTER)
      values[names[p.track_event().track_uuid()]].push_back(p.track_event().counter_value());
  }
  EXPECT_EQ(values["GPU live bytes"], (std::vector<int64_t>{4096, 1000}));
  EXPECT_EQ(values["GPU live bytes (texture)"], (std::vector<int64_t>{4096, 0}));
  EXPECT_EQ(values["GPU live bytes (buffer)"], (std::vector<int64_t>{0, 1000}));
}

TEST_F(TraceExportsTest, PprofHasTheGpuObjectsAliveAtTheEndAsSampleTypesOfTheirOwn) {
  Symbolizer symbolizer(capture_.main.modules);
  perftools::profiles::Profile heap_only;
  ASSERT_TRUE(heap_only.ParseFromString(PprofProfile(capture_, heap_, symbolizer)));
  EXPECT_EQ(heap_only.sample_type_size(), 4) << "no GPU objects, no GPU sample types";

  AddGpuObjects(&capture_.main);
  perftools::profiles::Profile p;
  ASSERT_TRUE(p.ParseFromString(PprofProfile(capture_, heap_, symbolizer)));
  auto str = [&](int64_t i) { return p.string_table(static_cast<int>(i)); };
  std::vector<std::string> types;
  for (const auto& t : p.sample_type()) types.push_back(str(t.type()) + "/" + str(t.unit()));
  EXPECT_EQ(types, (std::vector<std::string>{"alloc_objects/count", "alloc_space/bytes", "inuse_objects/count",
                                            "inuse_space/bytes", "gpu_inuse_objects/count", "gpu_inuse_space/bytes"}));
  // The heap's one site, then the buffer (the texture was deleted).
  ASSERT_EQ(p.sample_size(), 2);
  const auto& heap = p.sample(0).value();
  EXPECT_EQ(std::vector<int64_t>(heap.begin(), heap.end()), (std::vector<int64_t>{3, 180, 2, 80, 0, 0}));
  const auto& gpu = p.sample(1);
  EXPECT_EQ(std::vector<int64_t>(gpu.value().begin(), gpu.value().end()), (std::vector<int64_t>{0, 0, 0, 0, 1, 1000}));
  ASSERT_EQ(gpu.label_size(), 1);
  EXPECT_EQ(str(gpu.label(0).key()), "gpu_kind");
  EXPECT_EQ(str(gpu.label(0).str()), "buffer");
  EXPECT_EQ(gpu.location_id_size(), 1) << "the stack that made it";
}

}  // namespace
}  // namespace memframe::analysis
