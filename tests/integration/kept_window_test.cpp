// memframe run --keep-last: record memframe_window_game (600 frames of known
// allocations, window_truth.h) keeping the last second, and check the saved
// window against the truth: it holds exactly the events of the frames it
// says it holds in full, its per-frame totals of the whole run are the
// program's, the leak inside the window is a leak and the one before it is
// unknown, the segments on disk stayed a few, and a SIGUSR1 or a crash
// saves a window too.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "window_truth.h"

#ifndef MEMFRAME_CLI_PATH
#error "MEMFRAME_CLI_PATH must name the memframe executable"
#endif
#ifndef MEMFRAME_WINDOW_GAME_PATH
#error "MEMFRAME_WINDOW_GAME_PATH must name the window game executable"
#endif

namespace memframe::window_game {
namespace {

using nlohmann::json;

constexpr int kTimeoutSeconds = 180;
// 5 ms a frame: 600 frames take 3 s or more, the window keeps 1 s.
const char* const kMsPerFrame = "5";

struct Recording {
  e2e::CommandResult result;
  std::string log;  // memframe's stderr
};

Recording Record(const std::string& dir, const std::string& output, const std::vector<std::string>& game_args) {
  std::string command = e2e::ShellCommandLine({MEMFRAME_CLI_PATH, "run", "--no-summary", "--no-live", "--keep-last",
                                               "1s", "-o", output, "--", MEMFRAME_WINDOW_GAME_PATH});
  for (const std::string& arg : game_args) command += " " + arg;
  const std::string log = dir + "/memframe.log";
  Recording r;
  r.result = e2e::RunCommand({"/bin/sh", "-c", command + " 2>" + log}, kTimeoutSeconds);
  r.log = e2e::ReadTextFile(log);
  return r;
}

json Report(const std::string& capture, const std::vector<std::string>& args) {
  std::string failure;
  json parsed = e2e::ReportJson(MEMFRAME_CLI_PATH, capture, args, &failure);
  if (parsed.is_discarded()) ADD_FAILURE() << failure;
  return parsed;
}

// The whole run's totals in the window equal the program's, frames 1 to
// `last` (frame 0 also holds the C library's start).
void ExpectTotalsAreTruth(const json& totals, uint64_t last) {
  ASSERT_TRUE(totals.is_object()) << totals.dump();
  const uint64_t first = totals["first_frame"];
  ASSERT_EQ(first, 0u);
  ASSERT_GT(totals["allocs"].size(), last);
  for (uint64_t f = 1; f <= last; ++f) {
    EXPECT_EQ(totals["allocs"][f], AllocsIn(f)) << "frame " << f;
    EXPECT_EQ(totals["frees"][f], FreesIn(f)) << "frame " << f;
    EXPECT_EQ(totals["allocated_bytes"][f], BytesIn(f)) << "frame " << f;
    EXPECT_EQ(totals["freed_bytes"][f], FreesIn(f) * BlockSize(f)) << "frame " << f;
  }
  const uint64_t live0 = totals["live_bytes"][0];
  const uint64_t leaked = (last >= kEarlyLeakFrame ? kEarlyLeakBytes : 0) + (last >= kLateLeakFrame ? kLateLeakBytes : 0);
  EXPECT_EQ(uint64_t{totals["live_bytes"][last]}, live0 + leaked);
}

class KeptWindow : public ::testing::Test {
 protected:
  void SetUp() override { scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-kept-window"); }
  std::string File(const std::string& name) const { return (scratch_->path() / name).string(); }
  std::unique_ptr<e2e::ScratchDirectory> scratch_;
};

TEST_F(KeptWindow, HoldsExactlyTheLastFramesAndTheWholeRunsTotals) {
  const std::string output = File("window.mfc");
  Recording r = Record(scratch_->path().string(), output, {kMsPerFrame});
  ASSERT_EQ(r.result.exit_code, 0) << r.log;

  json summary = Report(output, {"summary"});
  const json& kept = summary["capture"]["kept_window"];
  ASSERT_TRUE(kept.is_object()) << summary["capture"].dump();
  EXPECT_EQ(kept["keep_last_ms"], 1000);
  EXPECT_EQ(kept["saved_for"], "end of run");
  ASSERT_TRUE(kept["starts_in_run"]) << "the run is longer than the window";
  const uint64_t first = kept["first_full_frame"];
  // Something was dropped, something kept (5 ms a frame: 1 s is ~200).
  ASSERT_GT(first, 1u);
  ASSERT_LT(first, kFrames - 1);
  EXPECT_GT(uint64_t{kept["dropped_events"]}, 0u);
  ExpectTotalsAreTruth(kept["frame_totals"], kFrames - 1);

  // Every event of frames first.. is there, none of the frames before
  // first - 1 (whose tail may be).
  json frames = Report(output, {"frames"});
  std::vector<const json*> by_frame(kFrames, nullptr);
  for (const json& row : frames["frames"]) {
    const uint64_t f = row["frame"];
    ASSERT_LT(f, kFrames);
    by_frame[f] = &row;
  }
  for (uint64_t f = 0; f + 1 < first; ++f) EXPECT_EQ(by_frame[f], nullptr) << "frame " << f << " is before the window";
  for (uint64_t f = first; f < kFrames; ++f) {
    ASSERT_NE(by_frame[f], nullptr) << "frame " << f;
    const json& row = *by_frame[f];
    EXPECT_EQ(row["allocations"], AllocsIn(f)) << "frame " << f;
    EXPECT_EQ(row["frees"], FreesIn(f)) << "frame " << f;
    EXPECT_EQ(row["bytes_allocated"], BytesIn(f)) << "frame " << f;
  }
  // The late leak is in the window and leaks; the early one was allocated
  // before it, so it is unknown (as before an attach), not a leak.
  EXPECT_EQ(summary["leaks"]["blocks"], 1) << summary["leaks"].dump();
  EXPECT_EQ(summary["leaks"]["bytes"], kLateLeakBytes);
  EXPECT_TRUE(summary["leaks"]["are_leaks"]);

  // The text says what was kept.
  e2e::CommandResult text = e2e::RunCommand({MEMFRAME_CLI_PATH, "report", output, "summary"}, kTimeoutSeconds);
  EXPECT_NE(text.standard_output.find("Kept        a kept window of the run (--keep-last 1.00 s, saved at end of "
                                      "run): frames from " + std::to_string(first) + " in full"),
            std::string::npos)
      << text.standard_output;

  // Segments of 250 ms, deleted once the newer cover 1 s: never more than 6
  // on disk at once (a 3 s run writes 12 or more), and none left behind.
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.log, m, std::regex(R"(took at most (\d+) bytes on disk \((\d+) segments at once\))")))
      << r.log;
  EXPECT_LE(std::stoul(m[2]), 6u) << r.log;
  EXPECT_FALSE(std::filesystem::exists(output + ".window"));
}

TEST_F(KeptWindow, SignalSavesTheWindowSoFarBesideTheOutput) {
  const std::string output = File("signal.mfc");
  Recording r = Record(scratch_->path().string(), output, {kMsPerFrame, "--signal-parent-at", "400"});
  ASSERT_EQ(r.result.exit_code, 0) << r.log;
  const std::string saved = File("signal-signal.mfc");
  ASSERT_TRUE(std::filesystem::exists(saved)) << r.log;
  json summary = Report(saved, {"summary"});
  const json& kept = summary["capture"]["kept_window"];
  ASSERT_TRUE(kept.is_object());
  EXPECT_EQ(kept["saved_for"], "signal SIGUSR1");
  EXPECT_TRUE(summary["capture"]["detached"]) << "the program ran on";
  EXPECT_EQ(summary["capture"]["error"], "");
  // The totals up to the signal (the agent may still hold frame 400's
  // events then): every frame before the last they have is the program's.
  const json& totals = kept["frame_totals"];
  ASSERT_GE(totals["allocs"].size(), 300u) << "frame 400 had begun";
  ExpectTotalsAreTruth(totals, totals["allocs"].size() - 2);
  // The window at the end is still written, and covers the end.
  json end = Report(output, {"summary"});
  EXPECT_EQ(end["capture"]["kept_window"]["saved_for"], "end of run");
}

TEST_F(KeptWindow, ACrashSavesTheWindowUpToIt) {
  const std::string output = File("crash.mfc");
  Recording r = Record(scratch_->path().string(), output, {kMsPerFrame, "--crash-at", "500"});
  ASSERT_EQ(r.result.exit_code, 128 + 11) << r.log;
  json summary = Report(output, {"summary"});
  EXPECT_EQ(summary["capture"]["termination_signal"], 11);
  const json& kept = summary["capture"]["kept_window"];
  ASSERT_TRUE(kept.is_object());
  const uint64_t first = kept["first_full_frame"];
  EXPECT_GT(first, 1u);
  EXPECT_LT(first, 500u);
  // Frames before the crash's (whose events the agent may not have sent).
  ExpectTotalsAreTruth(kept["frame_totals"], 498);
}

}  // namespace
}  // namespace memframe::window_game
