// Hosts that make life hard for an agent living in their process: their own
// allocator in the executable (which may hold its lock while it maps
// memory), allocations inside signal handlers, a tight address-space limit,
// programs that count on their fd numbers.
// The agent must never deadlock, crash or change what they do, and must
// record what it can and count what it cannot.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <fstream>
#include <iterator>
#include <map>
#include <new>
#include <string>

#include "agent_harness.h"
#include "host_truth.h"
#include "memframe/format.h"

namespace memframe::testing {
namespace {

using namespace memframe::targets;

std::string Target(const char* name) { return std::string(MEMFRAME_TARGETS_DIR) + "/target_" + name; }

uint64_t CountMaps(const AgentStream& s, uint64_t size) {
  uint64_t n = 0;
  for (const DecodedEvent& e : s.events)
    if (wire::KindOf(e.kind) == wire::EVENT_MAP && e.size == size) ++n;
  return n;
}

const wire::EndOfStream* EndOf(const AgentStream& s) {
  for (const wire::Packet& p : s.packets)
    if (p.has_end()) return &p.end();
  return nullptr;
}

// The regions every thread of own_allocator_workload.h maps itself.
constexpr uint64_t kOwnRegionsTotal = static_cast<uint64_t>(kOwnAllocatorThreads + 1) * kOwnRegions;

TEST(AgentHostile, AnAllocatorThatAbortsOnReentryFromItsOwnMmapRunsToTheEnd) {
  // Each thread's first hook is an mmap made inside the allocator's lock:
  // anything the agent allocates there (a thread's stack bounds looked up
  // with pthread_getattr_np, a symbol lookup) aborts the program.
  AgentRun run = RunWithAgent({Target("reentry_allocator")}, {.timeout_seconds = 30});
  EXPECT_EQ(run.exit_code, 0) << run.standard_error;
  ASSERT_EQ(run.standard_output.rfind("reentry allocator done, ", 0), 0u) << run.standard_output;
  int chunks = std::stoi(run.standard_output.substr(std::string("reentry allocator done, ").size()));
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  EXPECT_TRUE(s.ended);
  EXPECT_EQ(CountMaps(s, kOwnRegionBytes), kOwnRegionsTotal);
  // The allocator's own chunks are regions too, every one of them (those it
  // mapped before the agent was set up included).
  EXPECT_EQ(CountMaps(s, kOwnHeapChunkBytes), static_cast<uint64_t>(chunks));
  ASSERT_NE(EndOf(s), nullptr);
  EXPECT_EQ(EndOf(s)->unrecorded_in_signal_handlers(), 0u);
}

TEST(AgentHostile, AStaticallyLinkedJemallocStartsAndItsRegionsAreRecorded) {
#ifndef MEMFRAME_HAVE_STATIC_JEMALLOC
  GTEST_SKIP() << "Debian's libjemalloc.a (libjemalloc-dev) was not found at configure time";
#endif
  AgentRun run = RunWithAgent({Target("static_jemalloc")}, {.timeout_seconds = 30});
  EXPECT_EQ(run.exit_code, 0) << run.standard_error;
  EXPECT_EQ(run.standard_output, "static jemalloc done\n");
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_TRUE(run.streams[0].ended);
  EXPECT_EQ(CountMaps(run.streams[0], kOwnRegionBytes), kOwnRegionsTotal);
}

// Frees of blocks the stream never saw allocated, counted per thread in the
// thread's own order.
uint64_t UnknownFrees(const AgentStream& s) {
  std::map<uint32_t, std::map<uint64_t, int>> live;
  uint64_t unknown = 0;
  for (const DecodedEvent& e : s.events) {
    uint32_t kind = wire::KindOf(e.kind);
    if (kind == wire::EVENT_ALLOC) ++live[e.tid][e.address];
    if (kind != wire::EVENT_FREE || e.address == 0) continue;
    int& n = live[e.tid][e.address];
    if (n > 0) --n; else ++unknown;
  }
  return unknown;
}

// The program then forks a child that is followed and exits at once: the
// count is the stream's, so the child's starts from nothing (ForgetStream).
TEST(AgentHostile, SignalHandlerAllocationsAreRecordedOrCounted) {
  AgentRun run = RunWithAgent({Target("signal_alloc"), "fork"}, {.environment = {{"MEMFRAME_FOLLOW_FORK", "1"}}});
  EXPECT_EQ(run.exit_code, 0) << run.standard_error;
  EXPECT_EQ(run.standard_output, "signal handlers ran " + std::to_string(kSignals) + " times\n");
  ASSERT_EQ(run.streams.size(), 2u);  // accept order: the parent's first
  const wire::EndOfStream* child_end = EndOf(run.streams[1]);
  ASSERT_NE(child_end, nullptr);
  EXPECT_EQ(child_end->unrecorded_in_signal_handlers(), 0u);
  const AgentStream& s = run.streams[0];
  ASSERT_TRUE(s.ended);
  const wire::EndOfStream* end = EndOf(s);
  ASSERT_NE(end, nullptr);
  // Each handler run makes one block and frees it. Where the signal lands
  // decides what becomes of the pair (recursion_guard.h): outside a hook or
  // inside a real malloc, both are recorded (`whole`); inside the hook's own
  // bookkeeping, both are counted (`counted`, two calls each); inside a real
  // free, the malloc is counted and the free recorded, a free of a block the
  // stream never saw (`split`). The main loop's own blocks are all known.
  ASSERT_GE(CountAllocs(s, kSignalBlockSize), 1u);
  const uint64_t whole = CountAllocs(s, kSignalBlockSize) - 1;  // less main's warm-up block
  const uint64_t split = UnknownFrees(s);
  const uint64_t unrecorded_calls = end->unrecorded_in_signal_handlers();
  ASSERT_GE(unrecorded_calls, split);
  ASSERT_EQ((unrecorded_calls - split) % 2, 0u) << unrecorded_calls << " " << split;
  const uint64_t counted = (unrecorded_calls - split) / 2;
  EXPECT_EQ(whole + counted + split, static_cast<uint64_t>(kSignals))
      << "whole " << whole << ", counted " << counted << ", split " << split;
  // A tight loop of hooks is interrupted in the agent's own bookkeeping more
  // often than anywhere else (~70% counted here), but the pairs that land in
  // the program or a real malloc, or while a hook waits for ring space, are
  // recorded: some of each must be there.
  EXPECT_GT(whole, 0u) << "counted " << counted << ", split " << split;
  EXPECT_GT(counted + split, 0u);
  // No recorded handler block is left live (no false leak).
  EXPECT_EQ(LiveBlocksOfSize(s, kSignalBlockSize), 0u);
}

// MiB the program got under `limit_mib`, natively or under the agent.
int MibUnderLimit(int limit_mib, bool preload, std::string* error) {
  AgentRun run = RunWithAgent({Target("rlimit_host"), std::to_string(limit_mib)}, {.preload = preload});
  *error = run.standard_error;
  if (run.exit_code != 0) return -1;
  return std::stoi(run.standard_output);
}

TEST(AgentHostile, UnderAnAddressSpaceLimitTheProgramKeepsNearlyAllOfIt) {
  for (int limit : {1024, 300}) {
    std::string native_error, agent_error;
    int native = MibUnderLimit(limit, false, &native_error);
    int agent = MibUnderLimit(limit, true, &agent_error);
    ASSERT_GT(native, 0) << native_error;
    // The agent's rings, output buffer and stack table take some tens of
    // MiB, reserved as they are needed, never hundreds.
    EXPECT_GE(agent, native - 64) << "limit " << limit << " MiB: native " << native << ", with the agent " << agent
                                  << "\n" << agent_error;
    EXPECT_EQ(agent_error.find("not recording"), std::string::npos) << agent_error;
  }
}

// What libstdc++'s __cxa_allocate_exception asks malloc for a std::bad_alloc:
// its header (__cxa_refcounted_exception, 128 bytes on x86-64) and the object.
constexpr uint64_t kBadAllocObjectSize = 128 + sizeof(std::bad_alloc);

// A caught std::bad_alloc: the exception object libstdc++ allocates inside
// operator new is the game's, freed by its catch; the block a new_handler
// frees inside operator new is the game's too (new_semantics.cc).
TEST(AgentHostile, ABadAllocCaughtAndANewHandlersFreeAreRecordedInPairs) {
  AgentRun run = RunWithAgent({Target("new_semantics")});
  EXPECT_EQ(run.exit_code, 0) << run.standard_error;
  EXPECT_NE(run.standard_output.find("bad_alloc after 2 handler calls"), std::string::npos) << run.standard_output;
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  EXPECT_EQ(UnknownFrees(s), 0u);
  EXPECT_EQ(LiveBlocksOfSize(s, 1024), 0u);  // the reserve the handler frees
  // Every std::bad_alloc thrown (one caught by the program, two inside the
  // nothrow forms) is one exception object, allocated and freed.
  uint64_t exception_objects = 0;
  for (const DecodedEvent& e : s.events)
    if (wire::KindOf(e.kind) == wire::EVENT_ALLOC && e.size == kBadAllocObjectSize)
      ++exception_objects;
  EXPECT_EQ(exception_objects, 3u);
}

// A C program: the libstdc++ the agent brings is the agent's, and so is
// the emergency pool its constructor allocates.
TEST(AgentHostile, ACProgramShowsOnlyItsOwnAllocations) {
  AgentRun run = RunWithAgent({Target("c_program")});
  EXPECT_EQ(run.exit_code, 0) << run.standard_error;
  EXPECT_EQ(run.standard_output, "c program done\n");
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  uint64_t allocations = 0;
  for (const DecodedEvent& e : s.events) allocations += wire::KindOf(e.kind) == wire::EVENT_ALLOC;
  for (uint64_t size = 100; size < 110; ++size) EXPECT_EQ(CountAllocs(s, size), 1u) << size;
  EXPECT_EQ(CountAllocs(s, 4096), 1u);  // stdout's buffer (a pipe's block size)
  EXPECT_EQ(allocations, 11u);
  EXPECT_EQ(UnknownFrees(s), 0u);
}

// With --no-follow-exec each exec strips the agent from the child's
// environment: in a vfork child that work runs in the parent's memory,
// where nothing of it may stay.
TEST(AgentHostile, VforkedChildrenExecutedWithoutTheAgentLeaveTheHeapAsItWas) {
  AgentRun run = RunWithAgent({Target("vfork_exec"), "1000"}, {.environment = {{"MEMFRAME_FOLLOW_EXEC", "0"}}});
  EXPECT_EQ(run.exit_code, 0) << run.standard_error;
  EXPECT_EQ(run.standard_output, "1000 children, heap grew by 0 bytes\n");
  EXPECT_EQ(run.streams.size(), 1u);  // the children ran without the agent
}

// What target_fd_numbers prints in `mode`, natively and under the agent.
std::pair<std::string, std::string> FdNumbers(const std::vector<std::string>& mode) {
  std::vector<std::string> argv = {Target("fd_numbers")};
  argv.insert(argv.end(), mode.begin(), mode.end());
  AgentRun native = RunWithAgent(argv, {.preload = false});
  AgentRun agent = RunWithAgent(argv);
  EXPECT_EQ(native.exit_code, 0) << native.standard_error;
  EXPECT_EQ(agent.exit_code, 0) << agent.standard_error;
  EXPECT_FALSE(agent.streams.empty());
  return {native.standard_output, agent.standard_output};
}

TEST(AgentHostile, AProgramsFirstOpenGetsTheNumberItGetsNatively) {
  auto [native, agent] = FdNumbers({"first"});
  EXPECT_EQ(native.rfind("first open: ", 0), 0u) << native;  // 3, or more if the test runner left fds open
  EXPECT_EQ(agent, native);
}

// The agent's fds lie above the soft limit: a program started under a
// tight one opens as many files as natively.
TEST(AgentHostile, UnderATightFdLimitTheProgramOpensAsManyFilesAsNatively) {
  auto [native, agent] = FdNumbers({"limit", "16"});
  EXPECT_EQ(native.rfind("opened ", 0), 0u) << native;
  EXPECT_NE(native, "opened 0\n");  // the test's own fds may take a few of the 16
  EXPECT_EQ(agent, native);
}

// libunwind's memory check (a pipe it reads and writes) must never touch
// the program's files on the numbers it once had.
TEST(AgentHostile, FramesWithoutUnwindTablesLeaveTheProgramsFilesOnLowNumbersIntact) {
  const std::string in = "/tmp/memframe-fd-numbers-in-" + std::to_string(getpid());
  const std::string out = "/tmp/memframe-fd-numbers-out-" + std::to_string(getpid());
  const std::string bytes = "abcdefghij";
  FILE* f = fopen(in.c_str(), "w");
  ASSERT_NE(f, nullptr);
  fputs(bytes.c_str(), f);
  fclose(f);
  AgentRun run = RunWithAgent({Target("fd_numbers"), "reuse", in, out});
  std::ifstream written(out);
  std::string got((std::istreambuf_iterator<char>(written)), std::istreambuf_iterator<char>());
  std::remove(in.c_str());
  std::remove(out.c_str());
  EXPECT_EQ(run.exit_code, 0) << run.standard_error;
  EXPECT_EQ(run.standard_output, "read 10\n");
  EXPECT_EQ(got, bytes);
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountAllocs(run.streams[0], 64), 13u);  // i % 8 == 0 for i below 100: the walks did happen
}

}  // namespace
}  // namespace memframe::testing
