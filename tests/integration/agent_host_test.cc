// The agent inside other programs: it must record exactly what they do and
// never change how they behave, whatever they do (threads, fork, every way
// of exiting, a recorder that goes away).
#include <gtest/gtest.h>

#include <cctype>
#include <cstdio>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>

#include "agent_harness.h"
#include "exports_map.h"
#include "host_truth.h"
#include "memframe/format.h"

namespace memframe::testing {
namespace {

using namespace memframe::targets;

std::string Target(const char* name) { return std::string(MEMFRAME_TARGETS_DIR) + "/target_" + name; }

TEST(AgentHost, EightThreadsEveryBlockRecordedAndFreedAcrossThreads) {
  AgentRun run = RunWithAgent({Target("threads_churn")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "threads_churn done\n");
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  EXPECT_TRUE(s.ended);
  EXPECT_EQ(CountAllocs(s, kChurnBlockSize), static_cast<uint64_t>(kThreads) * kBlocksPerThread);
  // Blocks freed on another thread than the one that made them: every
  // allocation recorded has its free recorded, so nothing stays live.
  EXPECT_EQ(LiveBlocksOfSize(s, kChurnBlockSize), 0u);
  std::set<uint32_t> allocating_threads;
  for (const DecodedEvent& e : s.events)
    if (wire::KindOf(e.kind) == wire::EVENT_ALLOC && e.size == kChurnBlockSize) allocating_threads.insert(e.tid);
  EXPECT_EQ(allocating_threads.size(), static_cast<size_t>(kThreads));
  // Threads named after their first allocation keep their final names.
  std::set<std::string> names;
  for (const auto& [tid, name] : s.thread_names) names.insert(name);
  for (int t = 0; t < kThreads; ++t) EXPECT_TRUE(names.count("churn-" + std::to_string(t))) << t;
  // Every event of a thread is stamped after the previous one.
  std::map<uint32_t, uint64_t> last_tick;
  for (const DecodedEvent& e : s.events) {
    EXPECT_GE(e.ticks, last_tick[e.tid]);
    last_tick[e.tid] = e.ticks;
  }
}

struct ExitCase {
  const char* how;
  int exit_code;
  bool expect_end_of_stream;
};

void PrintTo(const ExitCase& c, std::ostream* os) { *os << c.how; }

class AgentExitPaths : public ::testing::TestWithParam<ExitCase> {};

TEST_P(AgentExitPaths, NothingStreamedIsLost) {
  const ExitCase& c = GetParam();
  AgentRun run = RunWithAgent({Target("exit_paths"), c.how});
  EXPECT_EQ(run.exit_code, c.exit_code);
  EXPECT_EQ(run.standard_output, std::string("exit_paths ") + c.how + "\n");
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountAllocs(run.streams[0], kExitBlockSize), static_cast<uint64_t>(kExitBlocks));
  EXPECT_EQ(run.streams[0].ended, c.expect_end_of_stream);
}

INSTANTIATE_TEST_SUITE_P(Ways, AgentExitPaths,
                         ::testing::Values(ExitCase{"return", 0, true}, ExitCase{"exit", 3, true},
                                           ExitCase{"_exit", 4, false}, ExitCase{"quick_exit", 5, false},
                                           ExitCase{"abort", 128 + 6, false}, ExitCase{"kill", 128 + 9, false}),
                         [](const auto& info) { return std::string(info.param.how[0] == '_' ? "underscore_exit" : info.param.how); });

TEST(AgentHost, ForkedChildIsUntrackedAndRunsUndisturbed) {
  AgentRun run = RunWithAgent({Target("fork_child")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "child done\nparent done, child exit 9\n");
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_TRUE(run.streams[0].ended);
  EXPECT_EQ(CountAllocs(run.streams[0], kForkBlockSize), 2u * kParentBlocks);
}

TEST(AgentHost, FollowedForkChildRecordsAStreamOfItsOwn) {
  AgentRun run = RunWithAgent({Target("fork_child")}, {.environment = {{"MEMFRAME_FOLLOW_FORK", "1"}}});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "child done\nparent done, child exit 9\n");
  ASSERT_EQ(run.streams.size(), 2u);
  // Accept order: the parent connected first.
  EXPECT_EQ(CountAllocs(run.streams[0], kForkBlockSize), 2u * kParentBlocks);
  EXPECT_EQ(CountAllocs(run.streams[1], kForkBlockSize), static_cast<uint64_t>(kChildBlocks));
  EXPECT_TRUE(run.streams[0].packets.front().has_hello());
  EXPECT_TRUE(run.streams[1].packets.front().has_hello());
  EXPECT_NE(run.streams[1].packets.front().hello().pid(), run.streams[0].packets.front().hello().pid());
  // Each stream lists its own modules: the child's stacks are symbolized
  // from its stream alone (the parent's map went to the parent's stream).
  auto lists_modules = [](const AgentStream& s) {
    for (const auto& p : s.packets)
      if (p.has_module_map() && p.module_map().modules_size() > 0) return true;
    return false;
  };
  EXPECT_TRUE(lists_modules(run.streams[0]));
  EXPECT_TRUE(lists_modules(run.streams[1]));
}

TEST(AgentHost, OperatorNewAndMallocSemanticsUnchanged) {
  AgentRun native = RunWithAgent({Target("new_semantics")}, {.preload = false});
  AgentRun profiled = RunWithAgent({Target("new_semantics")});
  AgentRun passive = RunWithAgent({Target("new_semantics")}, {.connect = false});
  ASSERT_EQ(native.exit_code, 0);
  EXPECT_NE(native.standard_output.find("bad_alloc after 2 handler calls"), std::string::npos)
      << native.standard_output;
  EXPECT_EQ(profiled.exit_code, native.exit_code);
  EXPECT_EQ(profiled.standard_output, native.standard_output);
  EXPECT_EQ(passive.exit_code, native.exit_code);
  EXPECT_EQ(passive.standard_output, native.standard_output);
  EXPECT_TRUE(passive.streams.empty());
}

TEST(AgentHost, RecorderDisappearingLeavesTheProgramRunning) {
  AgentRun run = RunWithAgent({Target("threads_churn")}, {.close_after_hello = true});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "threads_churn done\n");
}

TEST(AgentHost, DiagnosticsSurviveAClosedStderr) {
  AgentRun run = RunWithAgent({Target("quiet_host")}, {.close_after_hello = true});
  EXPECT_EQ(run.exit_code, 0);
  // The program closed fd 2 before the recorder went away; the agent kept
  // its own copy of it.
  EXPECT_NE(run.standard_error.find("the recorder went away"), std::string::npos) << run.standard_error;
}

TEST(AgentHost, TheWriterThreadBlocksTheGamesSignals) {
  AgentRun run = RunWithAgent({Target("quiet_host")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "writer blocks signals: yes\n");
  AgentRun native = RunWithAgent({Target("quiet_host")}, {.preload = false});
  EXPECT_EQ(native.standard_output, "writer blocks signals: absent\n");
}

TEST(AgentHost, DlsymRtldNextStaysRelativeToTheCallingLibrary) {
  AgentRun run = RunWithAgent({Target("dlsym_next")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "next which() = 2\n");
}

// glibc's error state of a failed dlopen (host_truth.h): the blocks the
// second failure left live (between the first two sentinels) are freed by
// the dlsym that follows (between the last two), with the result object
// of the first failure: at least two frees, all recorded.
void ExpectDlerrorStateFreed(const AgentStream& s) {
  auto sentinel = [&](size_t size) {
    for (size_t i = 0; i < s.events.size(); ++i)
      if (wire::KindOf(s.events[i].kind) == wire::EVENT_ALLOC && s.events[i].size == size) return i;
    return s.events.size();
  };
  const size_t before = sentinel(kDlerrorBeforeSentinel), failed = sentinel(kDlerrorFailedSentinel),
               after = sentinel(kDlerrorAfterSentinel);
  ASSERT_LT(before, failed);
  ASSERT_LT(failed, after);
  ASSERT_LT(after, s.events.size());
  std::map<uint64_t, uint64_t> left;  // address -> size: what the failed dlopen left live
  for (size_t i = before + 1; i < failed; ++i) {
    const DecodedEvent& e = s.events[i];
    if (wire::KindOf(e.kind) == wire::EVENT_ALLOC) left[e.address] = e.size;
    if (wire::KindOf(e.kind) == wire::EVENT_FREE) left.erase(e.address);
  }
  ASSERT_FALSE(left.empty()) << "the failed dlopen's message";
  size_t frees = 0;
  for (size_t i = failed + 1; i < after; ++i) {
    const bool sentinel_free = s.events[i].address == s.events[failed].address;
    if (wire::KindOf(s.events[i].kind) != wire::EVENT_FREE || sentinel_free) continue;
    ++frees;
    left.erase(s.events[i].address);
  }
  EXPECT_TRUE(left.empty()) << left.size() << " blocks of the error state were freed unseen, the first of "
                            << left.begin()->second << " bytes";
  EXPECT_GE(frees, 2u);
}

// The dlsym that frees it: the game's own of an intercepted name, or the
// agent's lookup of the real present on its first call.
// Frees of blocks the stream never allocated, for a program with one thread
// (the agent's own lookups must leave none for the program to free).
uint64_t UnknownFrees(const AgentStream& s) {
  std::map<uint64_t, uint64_t> live;  // address -> times allocated
  uint64_t unknown = 0;
  for (const DecodedEvent& e : s.events) {
    if (wire::KindOf(e.kind) == wire::EVENT_ALLOC) ++live[e.address];
    if (wire::KindOf(e.kind) != wire::EVENT_FREE) continue;
    auto it = live.find(e.address);
    if (it == live.end()) {
      ++unknown;
    } else if (--it->second == 0) {
      live.erase(it);
    }
  }
  return unknown;
}

TEST(AgentHost, TheDlerrorStateADlsymFreesIsRecorded) {
  AgentRun run = RunWithAgent({Target("dlerror_state"), "dlsym"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "dlerror state freed\n");
  ASSERT_EQ(run.streams.size(), 1u);
  ExpectDlerrorStateFreed(run.streams[0]);
  EXPECT_EQ(UnknownFrees(run.streams[0]), 0u);
}

// The present hook's real function was looked up at the agent's start: the
// game's first present makes no dl* call on its thread, which would take
// the loader's lock and clear the game's pending dlerror().
TEST(AgentHost, APresentLeavesTheGamesDlerrorAsItIs) {
  AgentRun run = RunWithAgent({Target("dlerror_state"), "present"});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "dlerror kept across the present\n");
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountFrameEnds(run.streams[0], "glfwSwapBuffers"), 1u);
  EXPECT_EQ(UnknownFrees(run.streams[0]), 0u);
}

TEST(AgentHost, ProgramWithoutPresentsIsCutInTimeSlices) {
  AgentRun run = RunWithAgent({Target("exit_paths"), "return"});
  ASSERT_EQ(run.streams.size(), 1u);
  // 300 ms of sleep at 16 ms a slice: at least a dozen slices.
  EXPECT_GE(CountFrameEnds(run.streams[0], "time slice"), 12u);
}

TEST(AgentHost, AnonymousMappingsAreRegionsFileMappingsAreNot) {
  AgentRun run = RunWithAgent({Target("mmap_arena")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "arena ok 1\n");
  ASSERT_EQ(run.streams.size(), 1u);
  uint64_t maps = 0, unmaps = 0, remaps = 0, file_maps = 0;
  for (const DecodedEvent& e : run.streams[0].events) {
    uint32_t kind = wire::KindOf(e.kind);
    bool remap = e.kind & wire::kFlagRealloc;
    if (kind == wire::EVENT_MAP && e.size == kArenaBytes && !remap) ++maps;
    if (kind == wire::EVENT_MAP && e.size == 4096) ++file_maps;
    if (kind == wire::EVENT_UNMAP && e.size == kArenaBytes && !remap) ++unmaps;
    if (kind == wire::EVENT_MAP && remap && e.size == kGrownArenaBytes) ++remaps;
  }
  EXPECT_EQ(maps, static_cast<uint64_t>(kArenaCount));
  EXPECT_EQ(unmaps, 1u);
  EXPECT_EQ(remaps, 1u);
  EXPECT_EQ(file_maps, 0u);
}

TEST(AgentHost, ExecEndsTheStreamAndTheNewImageOpensAnother) {
  AgentRun run = RunWithAgent({Target("exec_chain")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "failed exec returned -1\nstage2\n");
  // Before the failed exec | after it (recording resumed) | after the exec.
  ASSERT_EQ(run.streams.size(), 3u);
  for (const AgentStream& s : run.streams) ASSERT_FALSE(s.packets.empty());
  EXPECT_EQ(CountAllocs(run.streams[0], kExecStage1Size), static_cast<uint64_t>(kExecStage1Blocks));
  EXPECT_EQ(run.streams[0].packets.back().end().reason(), "exec");
  EXPECT_EQ(CountAllocs(run.streams[1], kExecAfterFailureSize), static_cast<uint64_t>(kExecAfterFailureBlocks));
  EXPECT_EQ(run.streams[1].packets.back().end().reason(), "exec");
  EXPECT_EQ(CountAllocs(run.streams[2], kExecStage2Size), static_cast<uint64_t>(kExecStage2Blocks));
  EXPECT_TRUE(run.streams[2].ended);
  // One process throughout: exec keeps the pid.
  EXPECT_EQ(run.streams[0].packets.front().hello().pid(), run.streams[2].packets.front().hello().pid());
}

TEST(AgentHost, ExecWithoutFollowingRunsTheNewImageUnprofiled) {
  AgentRun run = RunWithAgent({Target("exec_chain")}, {.environment = {{"MEMFRAME_FOLLOW_EXEC", "0"}}});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "failed exec returned -1\nstage2\n");
  ASSERT_EQ(run.streams.size(), 2u);  // before and after the failed exec; stage 2 is not recorded
  EXPECT_EQ(CountAllocs(run.streams[1], kExecAfterFailureSize), static_cast<uint64_t>(kExecAfterFailureBlocks));
}

bool HasModule(const AgentStream& s, const std::string& suffix) {
  for (const wire::Packet& p : s.packets)
    for (const wire::Module& m : p.module_map().modules())
      if (m.path().size() >= suffix.size() && m.path().compare(m.path().size() - suffix.size(), suffix.size(), suffix) == 0)
        return true;
  return false;
}

class AgentPlugins : public ::testing::TestWithParam<const char*> {};

TEST_P(AgentPlugins, PluginAllocationsRecordedAndModuleMappedBeforeUnload) {
  AgentRun run = RunWithAgent({Target("plugin_host"), GetParam()});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "plugin done\n");
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountAllocs(run.streams[0], kPluginBlockSize), static_cast<uint64_t>(kPluginBlocks));
  EXPECT_EQ(LiveBlocksOfSize(run.streams[0], kPluginBlockSize), 0u);
  // Loaded and unloaded within a millisecond, still in the module map.
  EXPECT_TRUE(HasModule(run.streams[0], "libmemframe_test_plugin.so"));
}

INSTANTIATE_TEST_SUITE_P(Modes, AgentPlugins, ::testing::Values("plain", "deepbind"));

TEST(AgentHost, AllocationsBeforeMainAreRecorded) {
  AgentRun run = RunWithAgent({Target("before_main")});
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, "before_main 1\n");
  ASSERT_EQ(run.streams.size(), 1u);
  EXPECT_EQ(CountAllocs(run.streams[0], kEarlyLibSize), static_cast<uint64_t>(kEarlyLibBlocks));
  EXPECT_EQ(CountAllocs(run.streams[0], kStaticInitSize), static_cast<uint64_t>(kStaticInitBlocks));
}

uint64_t EventsInBatches(const AgentStream& s) { return s.events.size(); }

TEST(AgentHost, SlowRecorderSlowsTheProgramButLosesNothing) {
  AgentRun run = RunWithAgent({Target("threads_churn"), "10"}, {.stall_ms = 1500});
  EXPECT_EQ(run.exit_code, 0);
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  ASSERT_TRUE(s.ended);
  EXPECT_EQ(s.packets.back().end().dropped(), 0u);
  EXPECT_EQ(CountAllocs(s, kChurnBlockSize), 10u * kThreads * kBlocksPerThread);
}

TEST(AgentHost, DropModeCountsExactlyWhatItDropped) {
  AgentRun run = RunWithAgent({Target("threads_churn"), "10"},
                              {.stall_ms = 1500, .environment = {{"MEMFRAME_DROP", "1"}}});
  EXPECT_EQ(run.exit_code, 0);
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  ASSERT_TRUE(s.ended);
  const wire::EndOfStream& end = s.packets.back().end();
  EXPECT_GT(end.dropped(), 0u);
  EXPECT_EQ(s.dropped_in_batches, end.dropped());
  EXPECT_EQ(EventsInBatches(s), end.events());
  EXPECT_LT(CountAllocs(s, kChurnBlockSize), 10u * kThreads * kBlocksPerThread);
}

class AgentAnnotations : public ::testing::TestWithParam<const char*> {};

// The header's plain calls, natively (nothing happens, nothing crashes) and
// under the agent, in a PIE and a non-PIE executable.
TEST_P(AgentAnnotations, FramesAndMarkers) {
  AgentRun native = RunWithAgent({Target(GetParam())}, {.preload = false});
  AgentRun run = RunWithAgent({Target(GetParam())});
  EXPECT_EQ(native.exit_code, 0);
  EXPECT_EQ(native.standard_output, "annotated " + std::to_string(kAnnotatedFrames) + " frames\n");
  EXPECT_EQ(run.exit_code, 0);
  EXPECT_EQ(run.standard_output, native.standard_output);
  ASSERT_EQ(run.streams.size(), 1u);
  const AgentStream& s = run.streams[0];
  EXPECT_EQ(CountFrameEnds(s, "memframe_frame_mark"), static_cast<uint64_t>(kAnnotatedFrames));
  EXPECT_EQ(CountAllocs(s, kAnnotatedBlockSize), static_cast<uint64_t>(kAnnotatedFrames));
  uint32_t marker_id = 0;
  for (const auto& [id, name] : s.markers)
    if (name == "level_load_begin") marker_id = id;
  ASSERT_NE(marker_id, 0u);
  uint64_t marker_events = 0;
  for (const DecodedEvent& e : s.events) {
    if (wire::KindOf(e.kind) != wire::EVENT_MARKER || e.size != marker_id) continue;
    ++marker_events;
    EXPECT_EQ(e.frame, static_cast<uint64_t>(kAnnotatedMarkerFrame));
    EXPECT_NE(e.stack_id, 0u);
  }
  EXPECT_EQ(marker_events, 1u);
  // The game's own arena blocks: recorded, flagged, all given back.
  uint64_t custom_allocs = 0, custom_frees = 0;
  for (const DecodedEvent& e : s.events) {
    if (!(e.kind & wire::kFlagCustom)) continue;
    if (wire::KindOf(e.kind) == wire::EVENT_ALLOC) {
      EXPECT_EQ(e.size, kArenaBlockSize);
      ++custom_allocs;
    }
    if (wire::KindOf(e.kind) == wire::EVENT_FREE) ++custom_frees;
  }
  EXPECT_EQ(custom_allocs, static_cast<uint64_t>(kAnnotatedFrames) * kArenaBlocksPerFrame);
  EXPECT_EQ(custom_frees, custom_allocs);
  EXPECT_EQ(LiveBlocksOfSize(s, kArenaBlockSize), 0u);
}

INSTANTIATE_TEST_SUITE_P(Builds, AgentAnnotations, ::testing::Values("annotated_game", "annotated_game_nopie"));

// The agent adds only its hooks to the program's symbol space: what
// exports.map lists, and never an allocator's own API (mi_malloc, mallocx,
// ...): a program that checks whether that allocator is loaded would find
// the agent's.
TEST(AgentHost, ExportsOnlyTheHooks) {
  const std::set<std::string> allowed = test::ExportsMapNames(MEMFRAME_AGENT_EXPORTS_MAP);
  for (const char* hook : {"malloc", "free", "glXSwapBuffers", "vkQueuePresentKHR", "dlsym", "mmap", "execve",
                           "posix_spawn", "memframe_frame_mark", "glTexImage2D", "glDeleteTextures", "vkAllocateMemory"})
    EXPECT_TRUE(allowed.count(hook)) << hook << " missing from exports.map";
  for (const std::string& name : allowed)
    for (const char* prefix : {"mi_", "je_", "mallocx", "rallocx", "tc_", "rp"})
      EXPECT_NE(name.rfind(prefix, 0), 0u) << "exports.map names an allocator's own API: " << name;
  FILE* nm = popen("nm -D --defined-only " MEMFRAME_AGENT_PATH, "r");
  ASSERT_NE(nm, nullptr);
  char line[512];
  std::set<std::string> exported;
  int operators = 0;
  while (fgets(line, sizeof(line), nm)) {
    char address[64], type[8], name[400];
    if (sscanf(line, "%63s %7s %399s", address, type, name) != 3) continue;
    std::string symbol(name);
    symbol = symbol.substr(0, symbol.find('@'));
    bool is_operator = symbol.rfind("_Znw", 0) == 0 || symbol.rfind("_Zna", 0) == 0 ||
                       symbol.rfind("_Zdl", 0) == 0 || symbol.rfind("_Zda", 0) == 0;
    if (is_operator) {
      ++operators;
      continue;
    }
    EXPECT_TRUE(allowed.count(symbol)) << "unexpected export: " << symbol;
    exported.insert(symbol);
  }
  pclose(nm);
  std::set<std::string> c_names;  // the operators are the quoted "operator new(...)" ones
  for (const std::string& name : allowed)
    if (name.find(' ') == std::string::npos) c_names.insert(name);
  EXPECT_EQ(exported, c_names);  // every hook listed is defined, nothing else
  EXPECT_EQ(operators, 20);      // 8 new and 12 delete forms
}

}  // namespace
}  // namespace memframe::testing
