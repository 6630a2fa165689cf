// The viewer's thread selection (Session::SelectThreads): the model is
// rebuilt from the selected threads' events in the background, swapped in
// by PollThreads, and every thread's events come back when it is cleared.
#include <gtest/gtest.h>

#include <chrono>
#include <thread>

#include "memframe/analysis/heap_analysis.h"
#include "memframe/analysis/size_histogram.h"
#include "session.h"
#include "test_capture.h"

namespace memframe::viewer {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::Free;
using testing::ToEvent;

// Frames 0..4: thread 0 ("main") allocates 100 B at stack 1 and frees it;
// thread 1 ("worker") allocates 30 B at stack 2 and main frees it in the
// next frame (the last stays).
std::unique_ptr<Session> TwoThreadSession() {
  analysis::Capture capture;
  capture.has_main = true;
  analysis::Stream& s = capture.main;
  s.threads = {{10, "main"}, {11, "worker"}};
  uint64_t t = 1;
  for (uint64_t f = 0; f < 5; ++f) {
    s.events.push_back(ToEvent(Alloc(++t, f, 0x2000 + f * 0x40, 30, 2), 1));
    s.events.push_back(ToEvent(Alloc(++t, f, 0x1000, 100, 1), 0));
    if (f > 0) s.events.push_back(ToEvent(Free(++t, f, 0x2000 + (f - 1) * 0x40), 0));
    s.events.push_back(ToEvent(Free(++t, f, 0x1000), 0));
    s.events.push_back(ToEvent(FrameEnd(++t, f), 0));
  }
  analysis::HeapAnalysis heap = analysis::AnalyzeHeap(s);
  auto sizes = analysis::SizeHistogramIndex::Build(s);
  analysis::ThreadHistory threads = analysis::RecordThreadHistory(s);
  auto symbolizer = std::make_unique<analysis::Symbolizer>(s.modules);
  auto session = std::make_unique<Session>(std::move(capture), std::move(heap), std::move(sizes), std::move(symbolizer));
  session->SetThreads(std::move(threads), {}, {});
  return session;
}

// Waits for the rebuild (no timing is asserted: the loop only bounds a hang).
bool WaitForRebuild(Session& session) {
  for (int i = 0; i < 6000; ++i) {
    if (session.PollThreads()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return false;
}

TEST(SessionThreads, SelectingAThreadRebuildsTheModelFromItsEvents) {
  auto session = TwoThreadSession();
  EXPECT_EQ(session->heap().allocations, 10u);
  EXPECT_EQ(session->ThreadCell(1), "main");
  EXPECT_EQ(session->ThreadCell(2), "worker");
  const uint64_t generation = session->classes_generation();

  session->SelectThreads({false, true});
  EXPECT_TRUE(session->threads_rebuilding());
  ASSERT_TRUE(WaitForRebuild(*session));
  EXPECT_FALSE(session->threads_rebuilding());
  EXPECT_NE(session->classes_generation(), generation);  // the views rebuild their rows
  EXPECT_EQ(session->thread_selection(), (analysis::ThreadSelection{false, true}));
  EXPECT_EQ(session->heap().allocations, 5u);
  EXPECT_EQ(session->heap().bytes_allocated, 150u);
  EXPECT_EQ(session->heap().frees, 4u);  // main freed four of them
  EXPECT_EQ(session->heap().leaks.total_bytes, 30u);
  EXPECT_EQ(session->heap().frames.frames.size(), 5u);
  EXPECT_EQ(session->ThreadCell(1), "");
  EXPECT_EQ(session->ThreadCell(2), "worker");
  EXPECT_EQ(session->PendingThreadTids(), (std::vector<std::string>{"11"}));
  // The Threads list still has every thread.
  EXPECT_EQ(session->thread_history().threads.size(), 2u);

  // Ticking every thread is no filter: every event comes back.
  session->SelectThreads({true, true});
  EXPECT_TRUE(session->pending_threads().empty());
  ASSERT_TRUE(WaitForRebuild(*session));
  EXPECT_TRUE(session->thread_selection().empty());
  EXPECT_EQ(session->capture().main.events.size(), 24u);
  EXPECT_EQ(session->heap().allocations, 10u);
  EXPECT_EQ(session->ThreadCell(1), "main");
}

}  // namespace
}  // namespace memframe::viewer
