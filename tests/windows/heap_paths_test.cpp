// Every path to the Win32 heap and virtual memory, under Wine: one capture
// of memframe_heap_paths.exe (tests/programs/heap_paths_windows/) made by
// `memframe.exe run`, checked against heap_paths_truth.h:
//   - the program is linked against the API-set import libraries: its
//     HeapAlloc/HeapReAlloc/HeapFree and VirtualAlloc/VirtualFree, kernelbase's
//     HeapAlloc/HeapFree fetched with GetProcAddress, and a DLL it loads with
//     kernelbase's LoadLibraryW are all recorded, frees and unmaps included;
//   - a private heap destroyed whole (HeapDestroy) leaves no leak;
//   - each private heap (HeapCreate, RtlCreateHeap) is named in the capture
//     (`report allocators`): where it was made, its blocks and bytes, its
//     destruction; the blocks of one never destroyed are leaks;
//   - ntdll's RtlAllocateHeap/RtlReAllocateHeap/RtlFreeHeap, RtlDestroyHeap
//     and NtAllocateVirtualMemory/NtFreeVirtualMemory called by name are
//     recorded as kernel32's are;
//   - what the engine DLL it imports allocates in its global constructor and
//     its DllMain, before main, is recorded;
//   - slow DllMains (the engine's, imported, and the plugin's, loaded late;
//     each sleeps with the loader lock held, at DLL_PROCESS_ATTACH and at
//     the DLL_THREAD_ATTACH of the threads the program watches) are
//     recorded exactly; `memframe.exe attach` and `detach` while one thread
//     after another sits in them end in bounded time, and the program's exit
//     status comes through.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <thread>
#include <string>
#include <vector>

#include "attach_detach.h"
#include "e2e_helpers.h"
#include "heap_paths_truth.h"

namespace memframe::windows {
namespace {

using nlohmann::json;

constexpr int kTimeoutSeconds = 180;

class WindowsHeapPaths : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-win-heap-paths");
    setenv("WINEPREFIX", (scratch_->path() / "wine").c_str(), 0);  // ctest names windows.build's
    setenv("WINEDEBUG", "-all", 1);
    capture_ = (scratch_->path() / "heap_paths.mfc").string();
    const std::vector<std::string> record = {MEMFRAME_CLI_PATH, "run", "--tcp", "-o", capture_, "--", "wine",
                                             MEMFRAME_WINDOWS_BIN "/memframe.exe", "run", "--",
                                             MEMFRAME_WINDOWS_BIN "/heap_paths/memframe_heap_paths.exe"};
    e2e::CommandResult result = e2e::RunCommand(record, kTimeoutSeconds);
    recorded_ = result.exit_code == 0;
    if (!recorded_) record_failure_ = e2e::ShellCommandLine(record);
    if (recorded_) {
      summary_ = Report({});
      sites_ = e2e::OneScopeRows(Report({"sites", "--all-frames"}));
      leaks_ = e2e::EveryScopeRows(Report({"leaks"}));
      frames_ = Report({"frames"}).value("frames", json::array());
      allocators_ = Report({"allocators"}).value("allocators", json::array());
    }
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  void SetUp() override { ASSERT_TRUE(recorded_) << record_failure_; }

  static json Report(std::vector<std::string> arguments) {
    std::string failure;
    json report = e2e::ReportJson(MEMFRAME_CLI_PATH, capture_, arguments, &failure);
    EXPECT_FALSE(report.is_discarded()) << failure;
    return report.is_discarded() ? json::object() : report;
  }

  // The allocations of the sites whose stack holds `function`.
  static e2e::SiteTotals Allocated(const char* function) {
    return e2e::SumSites(e2e::SitesWithFunctionInStack(sites_, function));
  }
  // The blocks still live at the end that `function` allocated.
  static int Leaked(const char* function) {
    int blocks = 0;
    for (const json& site : e2e::SitesWithFunctionInStack(leaks_, function)) blocks += site.value("blocks", 0);
    return blocks;
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
  static inline std::string capture_, record_failure_;
  static inline bool recorded_ = false;
  static inline json summary_, sites_, leaks_, frames_, allocators_;

  // The private heaps (`report allocators`) made by a call from `function`.
  static std::vector<json> HeapsCreatedIn(const char* function) {
    std::vector<json> heaps;
    for (const json& a : allocators_) {
      const json& created = a.value("created", json());
      if (a.value("kind", "") == "heap" && created.is_object() && created["site"].is_object() &&
          created["site"].value("function", "") == function)
        heaps.push_back(a);
    }
    return heaps;
  }
};

TEST_F(WindowsHeapPaths, ApiSetImportsAndKernelbaseLookupsAreRecorded) {
  EXPECT_EQ(Allocated("ApiSetHeapBlocks").allocations, static_cast<uint64_t>(kApiSetHeapBlocks));
  EXPECT_EQ(Allocated("ApiSetHeapBlocks").bytes, static_cast<uint64_t>(kApiSetHeapBlocks) * kApiSetHeapBytes);
  EXPECT_EQ(Leaked("ApiSetHeapBlocks"), 0) << "HeapFree through the API set not recorded";
  // HeapAlloc, then HeapReAlloc (an allocation of its own), all freed.
  EXPECT_EQ(Allocated("ApiSetRealloc").allocations, 2u);
  EXPECT_EQ(Leaked("ApiSetRealloc"), 0);
  EXPECT_EQ(Allocated("FetchedHeapCalls").allocations, static_cast<uint64_t>(kFetchedBlocks));
  EXPECT_EQ(Leaked("FetchedHeapCalls"), 0) << "kernelbase's HeapFree by GetProcAddress not recorded";
  // The plugin's imports were patched when kernelbase's LoadLibraryW loaded it.
  EXPECT_EQ(Allocated("PluginWork").allocations, static_cast<uint64_t>(kPluginBlocks));
  EXPECT_EQ(Leaked("PluginWork"), kPluginBlocks);
}

TEST_F(WindowsHeapPaths, RegionsThroughTheApiSetAndNtdllAreRecorded) {
  // Mapped with VirtualAlloc (NtAllocateVirtualMemory), all but the last
  // released with VirtualFree (NtFreeVirtualMemory): those two are the only
  // mappings live at the end.
  uint64_t mapped_at_end = 0;
  for (const json& frame : frames_) mapped_at_end = frame.value("mapped_bytes", uint64_t{0});
  EXPECT_EQ(mapped_at_end, static_cast<uint64_t>(kApiSetRegionBytes) + kNtdllRegionBytes);
}

TEST_F(WindowsHeapPaths, NtdllsHeapCalledByNameIsRecorded) {
  // RtlAllocateHeap, then RtlReAllocateHeap (an allocation of its own), all freed.
  EXPECT_EQ(Allocated("NtdllHeapBlocks").allocations, static_cast<uint64_t>(kNtdllHeapBlocks) + 1);
  EXPECT_EQ(Leaked("NtdllHeapBlocks"), 0) << "RtlFreeHeap not recorded";
  // A heap of RtlCreateHeap's destroyed whole with RtlDestroyHeap.
  EXPECT_EQ(Allocated("NtdllPrivateHeap").allocations, static_cast<uint64_t>(kNtdllPrivateBlocks));
  EXPECT_EQ(Allocated("NtdllPrivateHeap").bytes, static_cast<uint64_t>(kNtdllPrivateBlocks) * kNtdllPrivateBytes);
  EXPECT_EQ(Leaked("NtdllPrivateHeap"), 0) << "RtlDestroyHeap's blocks not freed";
}

TEST_F(WindowsHeapPaths, APrivateHeapDestroyedWholeLeavesNoLeak) {
  EXPECT_EQ(Allocated("PrivateHeapBlocks").allocations, static_cast<uint64_t>(kPrivateBlocks + 1));
  EXPECT_EQ(Leaked("PrivateHeapBlocks"), 0);
}

TEST_F(WindowsHeapPaths, PrivateHeapsAreNamedWithTheirBlocks) {
  const std::vector<json> destroyed = HeapsCreatedIn("PrivateHeapBlocks");
  ASSERT_EQ(destroyed.size(), 1u) << allocators_.dump(1);
  const json& d = destroyed[0];
  const std::string name = d.value("name", "");
  EXPECT_EQ(name.rfind("heap 0x", 0), 0u) << name;
  EXPECT_EQ(d.value("title", ""), name + " created at PrivateHeapBlocks");
  EXPECT_EQ(d.value("blocks", 0), kPrivateBlocks + 1);
  EXPECT_EQ(d.value("bytes", 0), kPrivateBlocks * kPrivateBytes + kPrivateLargeBytes);
  EXPECT_EQ(d.value("live_blocks_end", -1), 0);
  EXPECT_EQ(d.value("live_bytes_end", -1), 0);
  EXPECT_EQ(d.value("releases", 0), 1);
  ASSERT_TRUE(d["destroyed_frame"].is_number()) << d.dump();
  EXPECT_GT(d["created"].value("thread", 0), 0);
  EXPECT_LE(d["created"].value("frame", UINT64_MAX), d["destroyed_frame"].get<uint64_t>());

  const std::vector<json> leaked = HeapsCreatedIn("LeakedHeapBlocks");
  ASSERT_EQ(leaked.size(), 1u) << allocators_.dump(1);
  const json& l = leaked[0];
  // A heap of its own, though it may sit where the destroyed one was (the
  // same handle, so the same name: the title tells them apart).
  EXPECT_NE(l.value("id", 0), d.value("id", 0));
  EXPECT_EQ(l.value("title", ""), l.value("name", "") + " created at LeakedHeapBlocks");
  EXPECT_EQ(l.value("blocks", 0), kLeakedHeapBlocks);
  EXPECT_EQ(l.value("bytes", 0), kLeakedHeapBlocks * kLeakedHeapBytes);
  EXPECT_EQ(l.value("live_blocks_end", 0), kLeakedHeapBlocks - kLeakedHeapFreed);
  EXPECT_EQ(l.value("live_bytes_end", 0), (kLeakedHeapBlocks - kLeakedHeapFreed) * kLeakedHeapBytes);
  EXPECT_TRUE(l["destroyed_frame"].is_null()) << l.dump();
  EXPECT_EQ(l.value("releases", -1), 0);
  // Its blocks are the program's leaks, the destroyed heap's are not.
  EXPECT_EQ(Leaked("LeakedHeapBlocks"), kLeakedHeapBlocks - kLeakedHeapFreed);
  EXPECT_EQ(Allocated("LeakedHeapBlocks").allocations, static_cast<uint64_t>(kLeakedHeapBlocks));

  // ntdll's RtlCreateHeap called by name: a heap of its own, destroyed.
  const std::vector<json> ntdll = HeapsCreatedIn("NtdllPrivateHeap");
  ASSERT_EQ(ntdll.size(), 1u) << allocators_.dump(1);
  EXPECT_EQ(ntdll[0].value("blocks", 0), kNtdllPrivateBlocks);
  EXPECT_EQ(ntdll[0].value("bytes", 0), kNtdllPrivateBlocks * kNtdllPrivateBytes);
  EXPECT_EQ(ntdll[0].value("live_blocks_end", -1), 0);
  EXPECT_TRUE(ntdll[0]["destroyed_frame"].is_number());
}

TEST_F(WindowsHeapPaths, AllocatorsTextNamesThePrivateHeaps) {
  const e2e::CommandResult text =
      e2e::RunCommand({MEMFRAME_CLI_PATH, "report", capture_, "allocators"}, kTimeoutSeconds);
  ASSERT_EQ(text.exit_code, 0) << text.standard_output;
  EXPECT_NE(text.standard_output.find(" created at LeakedHeapBlocks"), std::string::npos) << text.standard_output;
  EXPECT_NE(text.standard_output.find(" created at PrivateHeapBlocks"), std::string::npos) << text.standard_output;
  EXPECT_NE(text.standard_output.find("Private heaps the program created"), std::string::npos) << text.standard_output;
}

#ifdef MEMFRAME_VIEWER_PATH
// The viewer's Allocators tab shows the same heaps with the same figures.
TEST_F(WindowsHeapPaths, TheViewerShowsThePrivateHeaps) {
  const e2e::CommandResult dump = e2e::RunCommand(
      {MEMFRAME_VIEWER_PATH, capture_, "--dump-view-data", "allocators"}, kTimeoutSeconds);
  ASSERT_EQ(dump.exit_code, 0);
  const json view = e2e::ParseJsonOrDiscard(dump.standard_output);
  ASSERT_TRUE(view.is_object()) << dump.standard_output;
  int shown = 0;
  for (const json& row : view.value("rows", json::array())) {
    if (row.value("kind", "") != "heap") continue;
    const std::string title = row.value("title", "");
    if (title.ends_with(" created at LeakedHeapBlocks")) {
      ++shown;
      EXPECT_EQ(row.value("blocks", 0), kLeakedHeapBlocks);
      EXPECT_EQ(row.value("live_bytes_end", 0), (kLeakedHeapBlocks - kLeakedHeapFreed) * kLeakedHeapBytes);
      EXPECT_TRUE(row["destroyed_frame"].is_null());
    } else if (title.ends_with(" created at PrivateHeapBlocks")) {
      ++shown;
      EXPECT_EQ(row.value("blocks", 0), kPrivateBlocks + 1);
      EXPECT_EQ(row.value("live_bytes_end", -1), 0);
      EXPECT_TRUE(row["destroyed_frame"].is_number());
    }
  }
  EXPECT_EQ(shown, 2) << view.dump(1);
}
#endif

TEST_F(WindowsHeapPaths, AnImportedDllsStartUpIsRecorded) {
  const e2e::SiteTotals constructor = Allocated("EngineConstructorBlocks");
  EXPECT_EQ(constructor.allocations, static_cast<uint64_t>(kEngineCtorBlocks));
  EXPECT_EQ(constructor.bytes, static_cast<uint64_t>(kEngineCtorBlocks) * kEngineCtorBytes);
  const e2e::SiteTotals dllmain = Allocated("EngineDllMainBlocks");
  EXPECT_EQ(dllmain.allocations, static_cast<uint64_t>(kEngineDllMainBlocks));
  EXPECT_EQ(dllmain.bytes, static_cast<uint64_t>(kEngineDllMainBlocks) * kEngineDllMainBytes);
  EXPECT_EQ(Leaked("EngineConstructorBlocks"), kEngineCtorBlocks);
}

TEST_F(WindowsHeapPaths, SlowDllMainsAreRecordedExactly) {
  const e2e::SiteTotals engine = Allocated("EngineThreadAttachBlocks");
  const int engine_threads = kThreadsBeforePlugin + kThreadsAfterPlugin;
  EXPECT_EQ(engine.allocations, static_cast<uint64_t>(engine_threads * kEngineThreadBlocks));
  EXPECT_EQ(engine.bytes, static_cast<uint64_t>(engine_threads * kEngineThreadBlocks) * kEngineThreadBytes);
  EXPECT_EQ(Leaked("EngineThreadAttachBlocks"), 0);
  // The plugin, loaded late: its DLL_PROCESS_ATTACH, then the threads
  // started after it.
  const e2e::SiteTotals plugin = Allocated("PluginDllMainBlocks");
  EXPECT_EQ(plugin.allocations, static_cast<uint64_t>(kPluginDllMainBlocks));
  EXPECT_EQ(plugin.bytes, static_cast<uint64_t>(kPluginDllMainBlocks) * kPluginDllMainBytes);
  EXPECT_EQ(Leaked("PluginDllMainBlocks"), kPluginDllMainBlocks);
  const e2e::SiteTotals plugin_threads = Allocated("PluginThreadAttachBlocks");
  EXPECT_EQ(plugin_threads.allocations, static_cast<uint64_t>(kThreadsAfterPlugin * kPluginThreadBlocks));
  EXPECT_EQ(plugin_threads.bytes,
            static_cast<uint64_t>(kThreadsAfterPlugin * kPluginThreadBlocks) * kPluginThreadBytes);
  EXPECT_EQ(Leaked("PluginThreadAttachBlocks"), 0);
}

// The program in --linger mode: one watched thread after another, each
// sitting kSlowDllMainMs in each DllMain with the loader lock held, until
// the test creates the stop file; then it exits with kLingerExitStatus.
class WindowsSlowDllMain : public ::testing::Test {
 protected:
  static constexpr const char* kName = "memframe_heap_paths_linger.exe";

  void SetUp() override {
    namespace fs = std::filesystem;
    setenv("WINEPREFIX", (scratch_.path() / "wine").c_str(), 0);  // ctest names windows.build's
    setenv("WINEDEBUG", "-all", 1);
    // A copy with a name of its own: other tests share the Wine prefix.
    const fs::path dir = scratch_.path() / "linger";
    fs::copy(MEMFRAME_WINDOWS_BIN "/heap_paths", dir);
    fs::rename(dir / "memframe_heap_paths.exe", dir / kName);
    game_ = windows_test::Spawn({"wine", (dir / kName).string(), "--linger", "Z:" + stop_.string()});
    ASSERT_GT(game_, 0);
  }
  void TearDown() override {
    std::ofstream(stop_).put('\n');
    windows_test::WaitBounded(game_, 60);
    system(("wine taskkill /f /im " + std::string(kName) + " >/dev/null 2>&1").c_str());
  }

  // The recorder of `memframe.exe attach` into `capture`.
  std::vector<std::string> Record(const std::string& capture) const {
    return {MEMFRAME_CLI_PATH, "run", "--tcp", "--force", "-o", capture, "--",
            "wine", MEMFRAME_WINDOWS_INJECTOR_PATH, "attach", kName};
  }
  // Lets the program exit: its wait status (-2 if it had to be killed).
  int StopTheProgram() {
    std::ofstream(stop_).put('\n');
    const int status = windows_test::WaitBounded(game_, 60);
    game_ = -1;
    return status;
  }

  static json Report(const std::string& capture, const std::vector<std::string>& arguments) {
    std::string failure;
    json report = e2e::ReportJson(MEMFRAME_CLI_PATH, capture, arguments, &failure);
    EXPECT_FALSE(report.is_discarded()) << failure;
    return report.is_discarded() ? json::object() : report;
  }
  // The DllMain blocks of watched threads in `capture` are whole DllMains'
  // (the loader lock keeps the agent's start out of one), and some there are.
  static void ExpectWholeDllMains(const std::string& capture) {
    const json sites = e2e::OneScopeRows(Report(capture, {"sites", "--all-frames"}));
    const e2e::SiteTotals engine = e2e::SumSites(e2e::SitesWithFunctionInStack(sites, "EngineThreadAttachBlocks"));
    const e2e::SiteTotals plugin = e2e::SumSites(e2e::SitesWithFunctionInStack(sites, "PluginThreadAttachBlocks"));
    EXPECT_GE(engine.allocations, static_cast<uint64_t>(kEngineThreadBlocks));
    EXPECT_EQ(engine.allocations % kEngineThreadBlocks, 0u) << engine.allocations;
    EXPECT_EQ(engine.bytes, engine.allocations * kEngineThreadBytes);
    EXPECT_EQ(plugin.allocations % kPluginThreadBlocks, 0u) << plugin.allocations;
    EXPECT_EQ(plugin.bytes, plugin.allocations * kPluginThreadBytes);
  }

  e2e::ScratchDirectory scratch_{"memframe-win-slow-dllmain"};
  const std::filesystem::path stop_ = scratch_.path() / "stop";
  pid_t game_ = -1;
};

// `memframe.exe attach`, then `detach`, while threads sit in the slow
// DllMains: both end in bounded time, the program runs on and exits with
// its own status.
TEST_F(WindowsSlowDllMain, AttachAndDetachWhileAThreadSitsInADllMain) {
  const std::string capture = (scratch_.path() / "detached.mfc").string();
  const std::vector<std::string> detach = {"wine", MEMFRAME_WINDOWS_INJECTOR_PATH, "detach", kName};
  const windows_test::AttachedThenDetached attach =
      windows_test::AttachThenDetach(Record(capture), detach, 90, kTimeoutSeconds);
  // Bounded waits: a deadlock fails the test rather than hang it.
  const int recorder_status = windows_test::WaitBounded(attach.recorder, 60);
  const bool ran_on = waitpid(game_, nullptr, WNOHANG) == 0;
  const int game_status = StopTheProgram();
  ASSERT_EQ(attach.detached, 0) << "memframe.exe detach never succeeded";
  EXPECT_TRUE(WIFEXITED(recorder_status) && WEXITSTATUS(recorder_status) == 0) << recorder_status;
  EXPECT_TRUE(ran_on);
  EXPECT_TRUE(WIFEXITED(game_status) && WEXITSTATUS(game_status) == kLingerExitStatus) << game_status;
  const json info = Report(capture, {}).value("capture", json::object());
  EXPECT_TRUE(info.value("attached", false));
  EXPECT_TRUE(info.value("complete", false));
  EXPECT_EQ(info.value("ended", ""), "ran on after memframe detached");
  ExpectWholeDllMains(capture);
}

// `memframe.exe attach` while threads sit in the slow DllMains, recording
// to the program's end: the program's exit status comes through
// memframe.exe and the recorder, and the capture has it.
TEST_F(WindowsSlowDllMain, AnAttachRecordsToTheEndAndPassesTheExitStatus) {
  const std::string capture = (scratch_.path() / "to_end.mfc").string();
  // Until Wine has started the program the attach finds nothing and ends:
  // started again until one stays (attached, recording).
  pid_t recorder = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(90);
  while (recorder < 0 && std::chrono::steady_clock::now() < deadline) {
    recorder = windows_test::Spawn(Record(capture));
    ASSERT_GT(recorder, 0);
    std::this_thread::sleep_for(std::chrono::seconds(3));
    if (waitpid(recorder, nullptr, WNOHANG) == recorder) recorder = -1;
  }
  ASSERT_GT(recorder, 0) << "memframe.exe attach never stayed";
  std::this_thread::sleep_for(std::chrono::seconds(2));  // a few watched threads recorded
  const int game_status = StopTheProgram();
  const int recorder_status = windows_test::WaitBounded(recorder, 60);
  EXPECT_TRUE(WIFEXITED(game_status) && WEXITSTATUS(game_status) == kLingerExitStatus) << game_status;
  EXPECT_TRUE(WIFEXITED(recorder_status) && WEXITSTATUS(recorder_status) == kLingerExitStatus) << recorder_status;
  const json info = Report(capture, {}).value("capture", json::object());
  EXPECT_TRUE(info.value("attached", false));
  EXPECT_TRUE(info.value("complete", false));
  EXPECT_EQ(info.value("exit_status", -1), kLingerExitStatus);
  ExpectWholeDllMains(capture);
}

// Wine ends the stack of a call back from the system (a window procedure's)
// with a made-up return address, 0xdeadbabe, below KiUserCallbackDispatcher:
// no frame.
TEST_F(WindowsHeapPaths, CallbackStacksEndWithoutWinesSentinel) {
  const std::vector<json> sites = e2e::SitesWithFunctionInStack(sites_, "CallbackWindowProc");
  EXPECT_EQ(e2e::SumSites(sites).allocations, static_cast<uint64_t>(kCallbackBlocks));
  EXPECT_EQ(Leaked("CallbackWindowProc"), 0);
  ASSERT_FALSE(sites.empty());
  for (const json& site : sites) {
    const json& stack = site.value("stack", json::array());
    ASSERT_FALSE(stack.empty());
    EXPECT_TRUE(e2e::StackContains(site, "KiUserCallbackDispatcher")) << stack.dump();
    for (const json& frame : stack) EXPECT_NE(frame.value("address", ""), "0xdeadbabe") << stack.dump();
  }
}

}  // namespace
}  // namespace memframe::windows
