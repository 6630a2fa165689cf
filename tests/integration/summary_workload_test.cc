// The summary in one pass against the whole load on the benchmark's
// game-shaped workload (tests/bench/game_loop_workload): threads whose
// batches interleave, frees on other threads than their allocations, level
// loads. Small runs (~0.2 M events each) of two shapes.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "summary_both_ways.h"

namespace memframe {
namespace {

void RecordAndCompare(const std::vector<std::string>& workload_args) {
  e2e::ScratchDirectory scratch("memframe-summary-workload");
  const std::string capture = (scratch.path() / "workload.mfc").string();
  std::vector<std::string> command = {MEMFRAME_CLI_PATH, "run", "-o", capture, "--", MEMFRAME_WORKLOAD_PATH};
  command.insert(command.end(), workload_args.begin(), workload_args.end());
  const e2e::CommandResult result = e2e::RunCommand(command, 120);
  ASSERT_EQ(result.exit_code, 0) << e2e::ShellCommandLine(command) << "\n" << result.standard_output;
  e2e::ExpectTheSummaryTheSameBothWays(capture);
}

TEST(SummaryOnWorkload, TwoThreadsWithLevelLoads) {
  RecordAndCompare({"--frames", "40", "--threads", "2", "--allocs", "1000", "--level-every", "15", "--level-mb", "2"});
}

TEST(SummaryOnWorkload, JobsOnFourThreadsFreedInShuffledOrder) {
  RecordAndCompare({"--shape", "jobs", "--frames", "30", "--threads", "4", "--allocs", "1000", "--level-mb", "1"});
}

}  // namespace
}  // namespace memframe
