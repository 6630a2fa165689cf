// Every path to the Win32 heap and virtual memory, under Wine: one capture
// of memframe_heap_paths.exe (tests/programs/heap_paths_windows/) made by
// `memframe.exe run`, checked against heap_paths_truth.h:
//   - the program is linked against the API-set import libraries: its
//     HeapAlloc/HeapReAlloc/HeapFree and VirtualAlloc/VirtualFree, kernelbase's
//     HeapAlloc/HeapFree fetched with GetProcAddress, and a DLL it loads with
//     kernelbase's LoadLibraryW are all recorded, frees and unmaps included;
//   - a private heap destroyed whole (HeapDestroy) leaves no leak;
//   - ntdll's RtlAllocateHeap/RtlReAllocateHeap/RtlFreeHeap, RtlDestroyHeap
//     and NtAllocateVirtualMemory/NtFreeVirtualMemory called by name are
//     recorded as kernel32's are;
//   - what the engine DLL it imports allocates in its global constructor and
//     its DllMain, before main, is recorded.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

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
  static inline json summary_, sites_, leaks_, frames_;
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

TEST_F(WindowsHeapPaths, AnImportedDllsStartUpIsRecorded) {
  const e2e::SiteTotals constructor = Allocated("EngineConstructorBlocks");
  EXPECT_EQ(constructor.allocations, static_cast<uint64_t>(kEngineCtorBlocks));
  EXPECT_EQ(constructor.bytes, static_cast<uint64_t>(kEngineCtorBlocks) * kEngineCtorBytes);
  const e2e::SiteTotals dllmain = Allocated("EngineDllMainBlocks");
  EXPECT_EQ(dllmain.allocations, static_cast<uint64_t>(kEngineDllMainBlocks));
  EXPECT_EQ(dllmain.bytes, static_cast<uint64_t>(kEngineDllMainBlocks) * kEngineDllMainBytes);
  EXPECT_EQ(Leaked("EngineConstructorBlocks"), kEngineCtorBlocks);
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
