// The summary in one pass against the whole load on the benchmark's
// game-shaped workload (tests/bench/game_loop_workload): threads whose
// batches interleave, frees on other threads than their allocations, level
// loads. Small runs (~0.2 M events each) of two shapes. And the summary
// `memframe run` printed, kept while it recorded (injector/live_summary.h),
// is the one read from the file.
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "summary_both_ways.h"

namespace memframe {
namespace {

void RecordAndCompare(const std::vector<std::string>& workload_args) {
  e2e::ScratchDirectory scratch("memframe-summary-workload");
  const std::string capture = (scratch.path() / "workload.mfc").string();
  const std::string printed = (scratch.path() / "run.stderr").string();
  std::vector<std::string> run = {MEMFRAME_CLI_PATH, "run", "-o", capture, "--", MEMFRAME_WORKLOAD_PATH};
  run.insert(run.end(), workload_args.begin(), workload_args.end());
  // memframe run's summary goes to its stderr.
  const std::vector<std::string> command = {"/bin/sh", "-c", e2e::ShellCommandLine(run) + " 2>" + printed};
  const e2e::CommandResult result = e2e::RunCommand(command, 120);
  ASSERT_EQ(result.exit_code, 0) << e2e::ShellCommandLine(command) << "\n" << result.standard_output;
  e2e::ExpectTheSummaryTheSameBothWays(capture);

  std::ostringstream from_file, err;
  ASSERT_EQ(analysis::PrintRunSummary(capture, from_file, err), 0) << err.str();
  std::ifstream in(printed);
  const std::string run_stderr((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(run_stderr.find(from_file.str()), std::string::npos)
      << "memframe run printed:\n" << run_stderr << "\nthe file's summary:\n" << from_file.str();
}

TEST(SummaryOnWorkload, TwoThreadsWithLevelLoads) {
  RecordAndCompare({"--frames", "40", "--threads", "2", "--allocs", "1000", "--level-every", "15", "--level-mb", "2"});
}

TEST(SummaryOnWorkload, JobsOnFourThreadsFreedInShuffledOrder) {
  RecordAndCompare({"--shape", "jobs", "--frames", "30", "--threads", "4", "--allocs", "1000", "--level-mb", "1"});
}

}  // namespace
}  // namespace memframe
