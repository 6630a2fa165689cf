// --thread (thread_filter.h) through RunReport on a synthetic capture with
// four threads whose every figure is known, and the filter itself on a
// stream with mappings.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "memframe/analysis/thread_filter.h"
#include "report_run.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using nlohmann::json;
using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::TempPath;
using testing::TestCapture;
using testing::TestEvent;

// Frames 0..3, ended by main (500). Every frame: main allocates 100 B at
// stack 1 and frees it; worker 501 allocates 40 B at stack 2, which main
// frees in the next frame (the frame-3 block stays). Worker 502 (also named
// "worker") allocates 8 B at stack 2 in frame 1 (stays) and 16 B at stack 3
// in frame 2 (freed by itself). Audio 503 frees 0xdead0000, which nobody
// allocated, in frame 3.
TestCapture FourThreads() {
  TestCapture tc;
  tc.Marker(1, "glfwSwapBuffers");
  tc.Thread(500, "main");
  tc.Thread(501, "worker");
  tc.Thread(502, "worker");
  tc.Thread(503, "audio");
  std::vector<TestEvent> main, worker, worker2, audio;
  for (uint32_t f = 0; f < 4; ++f) {
    const uint64_t t = 1000 + 100 * f;
    worker.push_back(Alloc(t + 1, f, 0x20000 + 0x100 * f, 40, 2));
    main.push_back(Alloc(t + 2, f, 0x10000, 100, 1));
    if (f > 0) main.push_back(Free(t + 3, f, 0x20000 + 0x100 * (f - 1)));
    main.push_back(Free(t + 4, f, 0x10000));
    main.push_back(FrameEnd(t + 50, f));
  }
  worker2.push_back(Alloc(1105, 1, 0x30000, 8, 2));
  worker2.push_back(Alloc(1205, 2, 0x30100, 16, 3));
  worker2.push_back(Free(1206, 2, 0x30100));
  audio.push_back(Free(1305, 3, 0xdead0000));
  tc.Batch(500, main);
  tc.Batch(501, worker);
  tc.Batch(502, worker2);
  tc.Batch(503, audio);
  tc.End();
  tc.Recorder(true, 0);
  return tc;
}

class ThreadFilterTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(FourThreads().Write(file_.path())); }
  testing::ReportResult Run(const std::string& report, std::vector<std::string> args, bool as_json = true) {
    return testing::RunReportCli(file_.path(), report, std::move(args), as_json);
  }
  TempPath file_{"thread_filter"};
};

json SiteOf(const json& sites, uint32_t stack_id) {
  for (const json& s : sites)
    if (s["stack_id"] == stack_id) return s;
  return nullptr;
}

TEST_F(ThreadFilterTest, SitesNameTheThreadsThatAllocateThere) {
  auto r = Run("sites", {"--from", "0"});
  ASSERT_EQ(r.code, 0) << r.err;
  json sites = r.Json()["phases"][0]["sites"];
  ASSERT_EQ(sites.size(), 3u);
  EXPECT_EQ(SiteOf(sites, 1)["thread"], "main");
  EXPECT_EQ(SiteOf(sites, 1)["threads"], json::parse(R"([{"tid":500,"name":"main","allocations":4}])"));
  EXPECT_EQ(SiteOf(sites, 2)["thread"], "worker+1");
  EXPECT_EQ(SiteOf(sites, 2)["threads"],
            json::parse(R"([{"tid":501,"name":"worker","allocations":4},{"tid":502,"name":"worker","allocations":1}])"));
  EXPECT_EQ(SiteOf(sites, 3)["thread"], "worker");
  auto text = Run("sites", {"--from", "0"}, false);
  EXPECT_NE(text.out.find("  thread    class"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("  worker+1  "), std::string::npos) << text.out;
}

TEST_F(ThreadFilterTest, LeaksAndLifetimesCarryTheThread) {
  auto leaks = Run("leaks", {});
  ASSERT_EQ(leaks.code, 0) << leaks.err;
  json sites = leaks.Json()["sites"];
  ASSERT_EQ(sites.size(), 1u);  // 40 B of 501 and 8 B of 502, both at stack 2
  EXPECT_EQ(sites[0]["blocks"], 2);
  EXPECT_EQ(sites[0]["leaked_bytes"], 48);
  EXPECT_EQ(sites[0]["thread"], "worker+1");
  auto lifetimes = Run("lifetimes", {});
  ASSERT_EQ(lifetimes.code, 0) << lifetimes.err;
  EXPECT_EQ(SiteOf(lifetimes.Json()["phases"][0]["sites"], 1)["thread"], "main");
}

TEST_F(ThreadFilterTest, ANameSelectsEveryThreadOfThatName) {
  auto r = Run("", {"--thread", "worker"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["allocations"], 6);      // 4 x 40 B (501), 8 B and 16 B (502)
  EXPECT_EQ(j["bytes_allocated"], 184);
  EXPECT_EQ(j["frees"], 4);            // main freed three of 501's blocks, 502 its own
  EXPECT_EQ(j["leaks"]["blocks"], 2);
  EXPECT_EQ(j["leaks"]["bytes"], 48);
  EXPECT_EQ(j["unknown_frees"], 0);
  EXPECT_EQ(j["frames"], 4);           // the frames stay the capture's
  auto text = Run("", {"--thread", "worker"}, false);
  EXPECT_NE(text.out.find("Threads     worker only (--thread)"), std::string::npos) << text.out;
}

TEST_F(ThreadFilterTest, ATidSelectsOneThread) {
  auto r = Run("", {"--thread", "501"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["allocations"], 4);
  EXPECT_EQ(j["frees"], 3);
  EXPECT_EQ(j["leaks"]["bytes"], 40);
  auto sites = Run("sites", {"--thread", "501", "--from", "0"});
  ASSERT_EQ(sites.code, 0) << sites.err;
  const json listed = sites.Json()["phases"][0]["sites"];
  ASSERT_EQ(listed.size(), 1u);
  EXPECT_EQ(listed[0]["thread"], "worker");
  EXPECT_EQ(listed[0]["allocations"], 4);
}

TEST_F(ThreadFilterTest, MainAloneSeesNoneOfTheWorkersBlocks) {
  auto r = Run("", {"--thread", "main"});
  ASSERT_EQ(r.code, 0) << r.err;
  json j = r.Json();
  EXPECT_EQ(j["allocations"], 4);
  EXPECT_EQ(j["bytes_allocated"], 400);
  EXPECT_EQ(j["frees"], 4);  // its own; its frees of 501's blocks go with them
  EXPECT_EQ(j["unknown_frees"], 0);
  EXPECT_EQ(j["leaks"]["blocks"], 0);
  auto frames = Run("frames", {"--thread", "main"});
  ASSERT_EQ(frames.code, 0) << frames.err;
  const json rows = frames.Json()["frames"];
  ASSERT_EQ(rows.size(), 4u);
  for (const json& f : rows) EXPECT_EQ(f["bytes_allocated"], 100) << f;
}

TEST_F(ThreadFilterTest, RepeatedThreadsAddUp) {
  auto r = Run("", {"--thread", "main", "--thread", "502"});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.Json()["allocations"], 6);
  EXPECT_EQ(r.Json()["bytes_allocated"], 424);
}

TEST_F(ThreadFilterTest, AFreeOfAnUnknownPointerStaysWithItsThread) {
  auto audio = Run("mismatches", {"--thread", "audio"});
  ASSERT_EQ(audio.code, 0) << audio.err;
  EXPECT_EQ(audio.Json()["total"], 1) << audio.out;
  auto main = Run("mismatches", {"--thread", "main"});
  ASSERT_EQ(main.code, 0) << main.err;
  EXPECT_EQ(main.Json()["total"], 0) << main.out;
}

TEST_F(ThreadFilterTest, ThreadsReportListsTheSelectedThreads) {
  auto r = Run("threads", {"--thread", "worker"});
  ASSERT_EQ(r.code, 0) << r.err;
  json threads = r.Json()["threads"];
  ASSERT_EQ(threads.size(), 2u);
  EXPECT_EQ(threads[0]["tid"], 501);
  EXPECT_EQ(threads[0]["allocations"], 4);
  EXPECT_EQ(threads[1]["tid"], 502);
  EXPECT_EQ(threads[1]["allocations"], 2);
}

TEST_F(ThreadFilterTest, AnUnknownThreadIsAnErrorListingTheThreads) {
  auto name = Run("sites", {"--thread", "render"});
  EXPECT_EQ(name.code, 2);
  EXPECT_EQ(name.out, "");
  EXPECT_EQ(name.err,
            "memframe: error: --thread render: no thread has that name (threads: main 500, worker 501, worker 502, "
            "audio 503)\n");
  auto tid = Run("leaks", {"--thread", "42"});
  EXPECT_EQ(tid.code, 2);
  EXPECT_NE(tid.err.find("--thread 42: no thread has that TID (threads: main 500,"), std::string::npos) << tid.err;
  auto missing = Run("leaks", {"--thread"});
  EXPECT_EQ(missing.code, 2);
  EXPECT_EQ(missing.err, "memframe: error: --thread needs a value\n");  // as every option says it
  EXPECT_EQ(Run("leaks", {"--thread="}).err, "memframe: error: --thread needs a value\n");
}

TEST_F(ThreadFilterTest, FragmentationRefusesTheFilter) {
  auto r = Run("fragmentation", {"--thread", "main"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_NE(r.err.find("memframe: error: report 'fragmentation' cannot honour --thread: "), std::string::npos)
      << r.err;
}

// A region goes with the thread that mapped it: its unmap is kept whoever
// makes it, even a partial one; another thread's region and unmap are not.
TEST(ThreadFilter, MappingsGoWithTheThreadThatMadeThem) {
  Stream s;
  s.threads = {{1, "main"}, {2, "loader"}};
  using testing::MapEvent;
  s.events = {MapEvent(1, 0, EventKind::kMap, 0x100000, 0x4000, 0, 1),
              MapEvent(2, 0, EventKind::kMap, 0x200000, 0x1000, 0, 0),
              MapEvent(3, 0, EventKind::kUnmap, 0x101000, 0x1000, 0, 0),
              MapEvent(4, 0, EventKind::kUnmap, 0x200000, 0x1000, 0, 1),
              MapEvent(5, 0, EventKind::kUnmap, 0x100000, 0x4000, 0, 0),
              testing::ToEvent(FrameEnd(6, 0), 0)};
  FilterThreads(&s, {false, true});
  std::vector<uint64_t> ticks;
  for (const Event& e : s.events) ticks.push_back(e.ticks);
  EXPECT_EQ(ticks, (std::vector<uint64_t>{1, 3, 5, 6}));
}

}  // namespace
}  // namespace memframe::analysis
