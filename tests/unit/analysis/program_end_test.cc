// How the program ended decides whether the blocks live at the end are
// leaks: only after an exit (program_end.h). Checked through the reports a
// user reads, on one capture ended four ways.
#include "memframe/analysis/program_end.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <csignal>
#include <sstream>

#include "memframe/report/report.h"
#include "report_run.h"
#include "test_capture.h"

namespace memframe::analysis {
namespace {

using testing::Alloc;
using testing::FrameEnd;
using testing::TempPath;
using testing::TestCapture;

enum class Ending { kExit3, kSigterm, kNoClosingRecord, kDetach };

// Two frames; one 64-byte block of stack 1 is never freed.
TestCapture EndedCapture(Ending ending) {
  TestCapture tc;
  tc.Stack(1, {0x1234});
  tc.Marker(1, "glfwSwapBuffers");
  tc.Thread(7, "main");
  tc.Batch(7, {Alloc(10, 0, 0x5000, 64, 1, 1), FrameEnd(11, 0), FrameEnd(12, 1)});
  if (ending == Ending::kDetach) {
    wire::Packet p;
    p.mutable_end()->set_reason("detach");
    tc.Add(p);
  } else {
    tc.End();
  }
  if (ending == Ending::kExit3) tc.Recorder(true, 3);
  if (ending == Ending::kSigterm) tc.Recorder(true, 128 + SIGTERM, SIGTERM);
  if (ending == Ending::kDetach) tc.Recorder(true, 0);
  return tc;
}

struct Reports {
  std::string summary;
  nlohmann::json leaks;
  std::string leaks_text;
};

Reports RunEnded(Ending ending) {
  TempPath path("program_end");
  EXPECT_TRUE(EndedCapture(ending).Write(path.path()));
  Reports r;
  std::ostringstream out, err;
  EXPECT_EQ(PrintRunSummary(path.path(), out, err), 0) << err.str();
  r.summary = out.str();
  auto leaks = testing::RunReportCli(path.path(), "leaks", {}, true);
  EXPECT_EQ(leaks.code, 0) << leaks.err;
  r.leaks = leaks.Json();
  r.leaks_text = testing::RunReportCli(path.path(), "leaks", {}, false).out;
  return r;
}

TEST(ProgramEndTest, AnExitLeavesLeaks) {
  Reports r = RunEnded(Ending::kExit3);
  EXPECT_NE(r.summary.find(") exited with status 3\n"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("Leaks       1 block, 64 B live at exit\n"), std::string::npos) << r.summary;
  EXPECT_EQ(r.leaks["are_leaks"], true);
  EXPECT_EQ(r.leaks["program_end"], "exited with status 3");
  EXPECT_NE(r.leaks_text.find("1 block (64 B) were live at the end; the program exited with status 3, so they are leaks"),
            std::string::npos)
      << r.leaks_text;
}

TEST(ProgramEndTest, AKilledGameLeavesNoLeaks) {
  Reports r = RunEnded(Ending::kSigterm);
  const std::string killed = "was killed by signal 15 (" + std::string(strsignal(SIGTERM)) + ")";
  EXPECT_NE(r.summary.find(") " + killed + "\n"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("Live at end 1 block, 64 B (not called leaks: the program " + killed + ")\n"),
            std::string::npos)
      << r.summary;
  EXPECT_EQ(r.summary.find("Leaks "), std::string::npos) << r.summary;
  EXPECT_EQ(r.leaks["are_leaks"], false);
  EXPECT_EQ(r.leaks["total_bytes"], 64);
  EXPECT_NE(r.leaks_text.find("so they are not called leaks"), std::string::npos) << r.leaks_text;
}

TEST(ProgramEndTest, NoClosingRecordIsNotAnExit) {
  Reports r = RunEnded(Ending::kNoClosingRecord);
  EXPECT_NE(r.summary.find(") was not seen to end\n"), std::string::npos) << r.summary;
  EXPECT_EQ(r.leaks["are_leaks"], false);
}

// The process ran on: its blocks were live when memframe detached, which
// says nothing of their end, let alone that they leaked.
TEST(ProgramEndTest, ADetachIsNotAnExit) {
  Reports r = RunEnded(Ending::kDetach);
  EXPECT_NE(r.summary.find(") ran on after memframe detached\n"), std::string::npos) << r.summary;
  EXPECT_NE(r.summary.find("\nStill live  1 block, 64 B when memframe detached; the process ran on (not leaks)\n"),
            std::string::npos)
      << r.summary;
  EXPECT_EQ(r.summary.find("live at exit"), std::string::npos) << r.summary;
  EXPECT_EQ(r.summary.find("Live at end"), std::string::npos) << r.summary;
  EXPECT_EQ(r.leaks["are_leaks"], false);
  EXPECT_EQ(r.leaks["program_end"], "ran on after memframe detached");
  EXPECT_NE(r.leaks_text.find("1 block (64 B) were live when memframe detached; the process ran on, so they are not "
                              "leaks\n"),
            std::string::npos)
      << r.leaks_text;
}

TEST(ProgramEndTest, TheLiveBlocksAreNamedByHowTheProgramEnded) {
  ProgramEnd end;
  end.kind = ProgramEnd::Kind::kExited;
  EXPECT_STREQ(LiveAtEndWord(end), "leaked");
  end.kind = ProgramEnd::Kind::kDetached;
  EXPECT_STREQ(LiveAtEndWord(end), "live at detach");
  end.kind = ProgramEnd::Kind::kKilled;
  EXPECT_STREQ(LiveAtEndWord(end), "live at exit");
  end.kind = ProgramEnd::Kind::kUnknown;
  EXPECT_STREQ(LiveAtEndWord(end), "live at end");
}

}  // namespace
}  // namespace memframe::analysis
