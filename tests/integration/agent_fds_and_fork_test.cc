// Hosts that take the agent's process state from under it: programs that
// close every fd and reuse the numbers, and children made by a raw fork or
// clone system call (no atfork handler runs). The program must run exactly
// as without memframe, and the agent must never write into the program's
// files, close them, or wait for a writer that is not there.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <string>

#include "agent_harness.h"
#include "host_truth.h"

namespace memframe::testing {
namespace {

using namespace memframe::targets;

std::string Target(const char* name) { return std::string(MEMFRAME_TARGETS_DIR) + "/target_" + name; }

// A hung program is killed well before ctest's limit, and fails the test.
constexpr int kHangSeconds = 45;

// Runs closes_fds in `mode` ("at-start" or "after-start") with a file of
// its own. The program's socketpair and file must hold exactly what it wrote;
// the agent's connection, closed with the rest, has no end record and
// nothing of what the program did after the close.
AgentRun RunClosesFds(const std::string& mode) {
  std::string file = "/tmp/memframe-closes-fds-" + std::to_string(getpid()) + ".out";
  AgentRun run = RunWithAgent({Target("closes_fds"), mode, file}, {.timeout_seconds = kHangSeconds});
  std::remove(file.c_str());
  EXPECT_EQ(run.exit_code, 0) << run.standard_output << run.standard_error;
  EXPECT_EQ(run.standard_output, "closes_fds " + mode + ": writes ok, socket intact, file intact\n");
  EXPECT_EQ(run.streams.size(), 1u);
  for (const AgentStream& s : run.streams) {
    EXPECT_FALSE(s.ended);
    EXPECT_TRUE(s.decode_error.empty()) << s.decode_error;
    EXPECT_EQ(CountAllocs(s, kFdLateSize), 0u);
  }
  return run;
}

TEST(AgentFds, ProgramThatClosesEveryFdAtStartKeepsItsOwnFilesAndSocketsIntact) { RunClosesFds("at-start"); }

TEST(AgentFds, ProgramThatClosesEveryFdWhileRecordedAndReusesTheNumbersKeepsThemIntact) {
  AgentRun run = RunClosesFds("after-start");
  // What the agent sent before the close stays (how much of it depends on
  // when the writer last ran).
  for (const AgentStream& s : run.streams)
    EXPECT_LE(CountAllocs(s, kFdEarlySize), static_cast<uint64_t>(kFdEarlyBlocks));
}

struct RawForkCase {
  const char* how;         // fork or clone
  const char* allocation;  // many (more than a ring holds) or few
};

void PrintTo(const RawForkCase& c, std::ostream* os) { *os << c.how << "_" << c.allocation; }

class AgentRawFork : public ::testing::TestWithParam<RawForkCase> {};

TEST_P(AgentRawFork, ChildRunsUndisturbedAndTheParentsStreamIsExact) {
  const RawForkCase& c = GetParam();
  AgentRun run = RunWithAgent({Target("raw_fork"), c.how, c.allocation},
                              {.timeout_seconds = kHangSeconds, .environment = {{"MEMFRAME_DEBUG", "1"}}});
  EXPECT_EQ(run.exit_code, 0) << run.standard_output << run.standard_error;
  EXPECT_EQ(run.standard_output, "child done\nparent done, child exit 0\n");
  // The child never writes to the parent's stream, and makes none of its own.
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  EXPECT_TRUE(s.ended);
  EXPECT_EQ(CountAllocs(s, kRawParentSize), 2u * kRawParentBlocks);
  EXPECT_EQ(CountAllocs(s, kRawChildSize), 0u);
  // The child's exit does not wait for the parent's writer (the wait would
  // end in this warning); it says it is not the recording process.
  EXPECT_EQ(run.standard_error.find("did not take the last events"), std::string::npos) << run.standard_error;
  EXPECT_NE(run.standard_error.find("not the recording process"), std::string::npos) << run.standard_error;
}

INSTANTIATE_TEST_SUITE_P(Ways, AgentRawFork,
                         ::testing::Values(RawForkCase{"fork", "many"}, RawForkCase{"clone", "many"},
                                           RawForkCase{"fork", "few"}, RawForkCase{"clone", "few"}),
                         [](const auto& info) { return std::string(info.param.how) + "_" + info.param.allocation; });

}  // namespace
}  // namespace memframe::testing
