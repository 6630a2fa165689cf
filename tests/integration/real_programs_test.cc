// Real programs nobody wrote for memframe, run with `memframe run`: their
// output and exit status must be exactly what they are without it, and the
// capture must hold what they did.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "host_truth.h"

namespace memframe::e2e {
namespace {

namespace fs = std::filesystem;

struct Comparison {
  CommandResult native;
  CommandResult profiled;
  nlohmann::json summary;
};

// Runs argv natively, then under `memframe run`, then summarises the capture.
Comparison RunBothWays(const std::vector<std::string>& argv, const fs::path& scratch) {
  Comparison c;
  c.native = RunCommand(argv, 300);
  std::string capture = (scratch / "capture.mfc").string();
  std::vector<std::string> profiled = {MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture, "--"};
  profiled.insert(profiled.end(), argv.begin(), argv.end());
  c.profiled = RunCommand(profiled, 300);
  CommandResult report = RunCommand({MEMFRAME_CLI_PATH, "report", capture, "--json"}, 300);
  c.summary = ParseJsonOrDiscard(report.standard_output);
  return c;
}

void ExpectSameBehaviour(const Comparison& c, uint64_t min_allocations) {
  EXPECT_EQ(c.profiled.exit_code, c.native.exit_code);
  EXPECT_EQ(c.profiled.standard_output, c.native.standard_output);
  ASSERT_FALSE(c.summary.is_discarded());
  EXPECT_TRUE(c.summary["capture"]["complete"].get<bool>());
  EXPECT_GE(c.summary["allocations"].get<uint64_t>(), min_allocations);
}

TEST(RealPrograms, PythonScriptThatAllocatesALot) {
  ScratchDirectory scratch("memframe-python");
  std::string script =
      "import json, collections\n"
      "d = {str(i): [i] * (i % 7) for i in range(200000)}\n"
      "c = collections.Counter(len(v) for v in d.values())\n"
      "print(json.dumps(sorted(c.items())))\n";
  Comparison c = RunBothWays({"/usr/bin/python3", "-c", script}, scratch.path());
  ExpectSameBehaviour(c, 1000);
  EXPECT_NE(c.native.standard_output.find("[[0,"), std::string::npos);
}

TEST(RealPrograms, GitOnASmallRepository) {
  ScratchDirectory scratch("memframe-git");
  fs::path repo = scratch.path() / "repo";
  fs::create_directories(repo);
  std::ofstream(repo / "a.txt") << "hello\n";
  std::vector<std::string> git = {"/usr/bin/git", "-C", repo.string(), "-c", "user.name=t", "-c", "user.email=t@e"};
  auto with = [&](std::vector<std::string> args) {
    std::vector<std::string> all = git;
    all.insert(all.end(), args.begin(), args.end());
    return all;
  };
  ASSERT_EQ(RunCommand(with({"init", "-q"}), 60).exit_code, 0);
  ASSERT_EQ(RunCommand(with({"add", "a.txt"}), 60).exit_code, 0);
  ASSERT_EQ(RunCommand(with({"commit", "-q", "-m", "first"}), 60).exit_code, 0);
  Comparison c = RunBothWays(with({"log", "--format=%s %an", "--stat"}), scratch.path());
  ExpectSameBehaviour(c, 100);
  EXPECT_NE(c.native.standard_output.find("first t"), std::string::npos);
}

TEST(RealPrograms, CmakeVersion) {
  ScratchDirectory scratch("memframe-cmake");
  Comparison c = RunBothWays({"/usr/bin/cmake", "--version"}, scratch.path());
  ExpectSameBehaviour(c, 100);
}

TEST(RealPrograms, GxxCompilesASmallFile) {
  ScratchDirectory scratch("memframe-gxx");
  fs::path source = scratch.path() / "small.cc";
  std::ofstream(source) << "#include <vector>\nint f(){ std::vector<int> v(10); return (int)v.size(); }\n";
  fs::path native_obj = scratch.path() / "native.o", profiled_obj = scratch.path() / "profiled.o";
  CommandResult native = RunCommand({"/usr/bin/g++", "-c", source.string(), "-o", native_obj.string()}, 300);
  std::string capture = (scratch.path() / "gxx.mfc").string();
  CommandResult profiled = RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture, "--", "/usr/bin/g++",
                                       "-c", source.string(), "-o", profiled_obj.string()},
                                      300);
  EXPECT_EQ(native.exit_code, 0);
  EXPECT_EQ(profiled.exit_code, 0);
  // g++ runs cc1plus and as as children (exec after fork): the objects match.
  auto bytes = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  EXPECT_EQ(bytes(native_obj), bytes(profiled_obj));
  nlohmann::json summary =
      ParseJsonOrDiscard(RunCommand({MEMFRAME_CLI_PATH, "report", capture, "--json"}, 300).standard_output);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_GE(summary["allocations"].get<uint64_t>(), 1000u);
}

// A program that frees with the wrong function, recorded with free stacks:
// the mismatches report names both the allocating and the freeing function.
TEST(MismatchReport, BothStacksWithFreeStacks) {
  ScratchDirectory scratch("memframe-mismatch");
  std::string capture = (scratch.path() / "m.mfc").string();
  CommandResult run = RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "--free-stacks", "-o", capture, "--",
                                  MEMFRAME_MISMATCH_TARGET},
                                 120);
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "mismatched\n");
  nlohmann::json report =
      ParseJsonOrDiscard(RunCommand({MEMFRAME_CLI_PATH, "report", capture, "mismatches", "--json"}, 120).standard_output);
  ASSERT_FALSE(report.is_discarded());
  std::string text = report.dump();
  for (const char* function : {"MakeScores", "DropScores", "MakeBuffer", "DropBuffer"})
    EXPECT_NE(text.find(function), std::string::npos) << function << " missing from " << text.substr(0, 2000);
}

// Eight threads hand blocks to each other through mailboxes
// (tests/programs/agent_targets/threads_churn.cc). The agent stamps them
// without a fence; whatever races that makes, the loaded capture holds every
// block and no free before its allocation (handoff_repair.h).
TEST(HandoffReport, BlocksHandedBetweenEightThreadsLoadWithoutContradictions) {
  ScratchDirectory scratch("memframe-handoff");
  std::string capture = (scratch.path() / "h.mfc").string();
  CommandResult run =
      RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture, "--", MEMFRAME_CHURN_TARGET, "4"}, 120);
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "threads_churn done\n");
  nlohmann::json summary =
      ParseJsonOrDiscard(RunCommand({MEMFRAME_CLI_PATH, "report", capture, "--json"}, 120).standard_output);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_GE(summary["allocations"].get<uint64_t>(), uint64_t{targets::kThreads} * targets::kBlocksPerThread * 4);
  EXPECT_EQ(summary["unknown_frees"].get<uint64_t>(), 0u);
  EXPECT_EQ(summary["allocs_over_live"].get<uint64_t>(), 0u);
  EXPECT_EQ(summary["dropped_events"].get<uint64_t>(), 0u);
  EXPECT_TRUE(summary.contains("handoffs_repaired"));
}

// Runs argv with its stderr in `stderr_path` (RunCommand leaves stderr to
// the test's log).
CommandResult RunKeepingStderr(const std::vector<std::string>& argv, const fs::path& stderr_path) {
  std::vector<std::string> shell = {"/bin/sh", "-c", "f=$1; shift; exec \"$@\" 2>\"$f\"", "sh", stderr_path.string()};
  shell.insert(shell.end(), argv.begin(), argv.end());
  return RunCommand(shell, 300);
}

std::string ReadText(const fs::path& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// A program that closes every fd (Python's os.closerange, as daemons do)
// closes the agent's connection with them: it runs exactly as without
// memframe, and the run's summary and the reports say that the capture
// stops early, rather than show what is missing as leaks.
TEST(RealPrograms, PythonThatClosesEveryFdIsToldTheCaptureStopsEarly) {
  ScratchDirectory scratch("memframe-closerange");
  std::vector<std::string> argv = {"/usr/bin/python3", "-c",
                                   "import os\n"
                                   "os.closerange(3, 1 << 16)\n"
                                   "d = {str(i): [i] * (i % 7) for i in range(100000)}\n"
                                   "print(len(d))\n"};
  CommandResult native = RunCommand(argv, 300);
  std::string capture = (scratch.path() / "capture.mfc").string();
  std::vector<std::string> profiled = {MEMFRAME_CLI_PATH, "run", "-o", capture, "--"};
  profiled.insert(profiled.end(), argv.begin(), argv.end());
  CommandResult run = RunKeepingStderr(profiled, scratch.path() / "run.err");
  EXPECT_EQ(run.exit_code, native.exit_code);
  EXPECT_EQ(run.standard_output, native.standard_output);
  EXPECT_EQ(native.standard_output, "100000\n");
  const std::string warning = "the program's stream ended without its end record";
  std::string run_err = ReadText(scratch.path() / "run.err");
  EXPECT_NE(run_err.find(warning), std::string::npos) << run_err;
  CommandResult report = RunKeepingStderr({MEMFRAME_CLI_PATH, "report", capture}, scratch.path() / "report.err");
  EXPECT_EQ(report.exit_code, 0);
  std::string report_err = ReadText(scratch.path() / "report.err");
  EXPECT_NE(report_err.find(warning), std::string::npos) << report_err;
  nlohmann::json summary =
      ParseJsonOrDiscard(RunCommand({MEMFRAME_CLI_PATH, "report", capture, "--json"}, 300).standard_output);
  ASSERT_FALSE(summary.is_discarded());
  EXPECT_FALSE(summary["capture"]["complete"].get<bool>());
}

// Jobs on fibers with stacks of their own, an inaccessible page above each
// (tests/programs/agent_targets/fibers.cc): the program runs as it does
// without memframe, and every block has its whole stack, from the fiber's
// job down to the allocating function, in the export's folded stacks.
TEST(FiberStacks, EveryBlockMadeOnAFiberHasItsJobsStack) {
  ScratchDirectory scratch("memframe-fibers");
  Comparison c = RunBothWays({MEMFRAME_FIBERS_TARGET}, scratch.path());
  ExpectSameBehaviour(c, uint64_t{targets::kFibers} * targets::kFiberRounds);
  EXPECT_EQ(c.native.exit_code, 0);
  EXPECT_EQ(c.summary["unknown_frees"].get<uint64_t>(), 0u);
  std::string folded = (scratch.path() / "f.folded").string();
  CommandResult exported = RunCommand(
      {MEMFRAME_CLI_PATH, "export", (scratch.path() / "capture.mfc").string(), "--format", "folded", "-o", folded}, 120);
  ASSERT_EQ(exported.exit_code, 0);
  // Folded lines: "outermost;...;innermost BYTES". The fibers' blocks come
  // from one call site, whose stack is the fiber's whole stack: glibc's
  // fiber entry (__start_context, unnamed without libc's symbols), FiberJob,
  // AllocateOnFiber.
  std::ifstream in(folded);
  std::string line;
  uint64_t fiber_bytes = 0;
  int fiber_lines = 0;
  while (std::getline(in, line)) {
    if (line.find("AllocateOnFiber") == std::string::npos) continue;
    ++fiber_lines;
    const std::string stack = line.substr(0, line.rfind(' '));
    EXPECT_TRUE(stack.rfind("libc.so.6+", 0) == 0 || stack.rfind("__start_context", 0) == 0) << stack;
    EXPECT_EQ(std::count(stack.begin(), stack.end(), ';'), 2) << stack;
    EXPECT_NE(stack.find("::FiberJob(int);(anonymous namespace)::AllocateOnFiber()"), std::string::npos) << stack;
    fiber_bytes += std::stoull(line.substr(line.rfind(' ') + 1));
  }
  EXPECT_EQ(fiber_lines, 1);
  EXPECT_EQ(fiber_bytes, uint64_t{targets::kFibers} * targets::kFiberRounds * targets::kFiberBlockSize);
}

// Python's os.posix_spawn calls libc's posix_spawn, which execs the child
// past the agent's execve hook: --no-follow-exec must still keep the agent
// out of it (and without the option the child has it).
TEST(RealPrograms, NoFollowExecAppliesToPosixSpawnChildren) {
  ScratchDirectory scratch("memframe-spawn");
  const std::string child =
      "import os; print(any(k.startswith('MEMFRAME_') for k in os.environ), "
      "'libmemframe_agent' in os.environ.get('LD_PRELOAD', ''))";
  const std::string script = "import os, sys\n"
                             "pid = os.posix_spawn(sys.executable, [sys.executable, '-c', \"" + child +
                             "\"], os.environ)\n"
                             "os.waitpid(pid, 0)\n";
  std::string capture = (scratch.path() / "capture.mfc").string();
  CommandResult unfollowed = RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "--no-follow-exec", "-o", capture,
                                         "--", "/usr/bin/python3", "-c", script},
                                        120);
  EXPECT_EQ(unfollowed.exit_code, 0);
  EXPECT_EQ(unfollowed.standard_output, "False False\n");
  CommandResult followed = RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "--force", "-o", capture, "--",
                                       "/usr/bin/python3", "-c", script},
                                      120);
  EXPECT_EQ(followed.exit_code, 0);
  EXPECT_EQ(followed.standard_output, "True True\n");
}

}  // namespace
}  // namespace memframe::e2e

namespace memframe::e2e {
namespace {

// `report threads`: the named worker's blocks are its own, exactly, and it
// is listed by its name; the main thread made its own blocks.
TEST(ThreadsReport, EachThreadsAllocationsUnderItsName) {
  ScratchDirectory scratch("memframe-threads");
  const std::string capture = (scratch.path() / "capture.mfc").string();
  CommandResult run = RunCommand({MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture, "--", MEMFRAME_NAMED_WORKER_TARGET}, 120);
  ASSERT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "named worker done\n");
  CommandResult report = RunCommand({MEMFRAME_CLI_PATH, "report", capture, "threads", "--json"}, 120);
  ASSERT_EQ(report.exit_code, 0);
  nlohmann::json j = ParseJsonOrDiscard(report.standard_output);
  ASSERT_FALSE(j.is_discarded()) << report.standard_output;
  nlohmann::json worker, main_thread;
  for (const nlohmann::json& t : j["threads"]) {
    if (t["name"] == targets::kWorkerName) worker = t;
    if (t["name"] == "target_named_wo") main_thread = t;  // the executable's name, cut to 15 bytes
  }
  ASSERT_FALSE(worker.is_null()) << j.dump(1);
  EXPECT_EQ(worker["allocations"], targets::kWorkerBlocks);
  EXPECT_EQ(worker["bytes"], targets::kWorkerBlocks * targets::kWorkerBlockSize);
  EXPECT_EQ(worker["frees"], targets::kWorkerBlocks);
  ASSERT_FALSE(main_thread.is_null()) << j.dump(1);
  EXPECT_GE(main_thread["allocations"].get<uint64_t>(), static_cast<uint64_t>(targets::kMainBlocks));
  // Shares of the allocator's time add up to the whole.
  double share = 0;
  for (const nlohmann::json& t : j["threads"]) share += t["alloc_time_share"].get<double>();
  EXPECT_NEAR(share, 1.0, 1e-9);

  // --thread by name: the worker's figures alone, exactly, and its one call
  // site names it; by TID, the same thread.
  CommandResult summary =
      RunCommand({MEMFRAME_CLI_PATH, "report", capture, "--thread", targets::kWorkerName, "--json"}, 120);
  ASSERT_EQ(summary.exit_code, 0);
  nlohmann::json s = ParseJsonOrDiscard(summary.standard_output);
  EXPECT_EQ(s["allocations"], targets::kWorkerBlocks);
  EXPECT_EQ(s["bytes_allocated"], targets::kWorkerBlocks * targets::kWorkerBlockSize);
  EXPECT_EQ(s["frees"], targets::kWorkerBlocks);
  EXPECT_EQ(s["leaks"]["blocks"], 0);
  const std::string tid = std::to_string(worker["tid"].get<uint32_t>());
  CommandResult sites =
      RunCommand({MEMFRAME_CLI_PATH, "report", capture, "sites", "--thread", tid, "--all-frames", "--json"}, 120);
  ASSERT_EQ(sites.exit_code, 0);
  nlohmann::json rows = OneScopeRows(ParseJsonOrDiscard(sites.standard_output));
  ASSERT_EQ(rows.size(), 1u) << rows.dump(1);
  EXPECT_EQ(rows[0]["thread"], targets::kWorkerName);
  EXPECT_EQ(rows[0]["allocations"], targets::kWorkerBlocks);
  EXPECT_EQ(rows[0]["size_min"], targets::kWorkerBlockSize);
  EXPECT_EQ(rows[0]["size_max"], targets::kWorkerBlockSize);

  // Without a filter the main thread's blocks are its own site, named after it.
  CommandResult all = RunCommand({MEMFRAME_CLI_PATH, "report", capture, "sites", "--all-frames", "--json"}, 120);
  ASSERT_EQ(all.exit_code, 0);
  bool found_main = false;
  const nlohmann::json all_sites = OneScopeRows(ParseJsonOrDiscard(all.standard_output));
  for (const nlohmann::json& site : all_sites) {
    if (site["size_min"] != targets::kMainBlockSize || site["size_max"] != targets::kMainBlockSize) continue;
    found_main = true;
    EXPECT_EQ(site["thread"], "target_named_wo");
    EXPECT_EQ(site["allocations"], targets::kMainBlocks);
  }
  EXPECT_TRUE(found_main);

  // The error is on stderr, which RunCommand leaves to the log: a shell joins it.
  const std::string unknown_command =
      ShellCommandLine({MEMFRAME_CLI_PATH, "report", capture, "sites", "--thread", "render"}) + " 2>&1";
  CommandResult unknown = RunCommand({"/bin/sh", "-c", unknown_command}, 120);
  EXPECT_EQ(unknown.exit_code, 2);
  EXPECT_NE(unknown.standard_output.find("no thread has that name (threads: "), std::string::npos)
      << unknown.standard_output;
  EXPECT_NE(unknown.standard_output.find(std::string(targets::kWorkerName) + " " + tid), std::string::npos)
      << unknown.standard_output;
}

}  // namespace
}  // namespace memframe::e2e
