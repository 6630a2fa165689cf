// Programs whose executable defines its own malloc, recorded by `memframe
// run`: the agent patches those entries before main (own_allocator_patch.h).
// Each program's threads make the blocks of own_allocator_workload.h, whose
// sizes and site are known; the reports must show exactly those, and the
// capture must say what was hooked. A heap whose entries the relocator
// refuses must run unharmed, with the refusal said.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "e2e_helpers.h"
#include "host_truth.h"

namespace memframe {
namespace {

using nlohmann::json;
using namespace targets;

constexpr const char kWorkloadFunction[] = "MapAndAllocate";
constexpr uint64_t kWorkloadBlocks = static_cast<uint64_t>(kOwnAllocatorThreads + 1) * kOwnRegions;
// Every thread makes one block of 100 + i bytes for i below kOwnRegions.
constexpr uint64_t kWorkloadBytes = (kOwnAllocatorThreads + 1) * (kOwnRegions * 100 + kOwnRegions * (kOwnRegions - 1) / 2);
const std::vector<std::string> kFamily = {"malloc", "calloc", "realloc", "free", "posix_memalign",
                                          "aligned_alloc", "memalign", "valloc", "pvalloc"};

struct Recorded {
  e2e::ScratchDirectory scratch{"memframe-own-allocator"};
  std::string capture;
  json summary;
  json sites;
  std::string summary_text;
};

// Records `program` (with `arguments`) and reads its summary (JSON and
// text) and sites.
void Record(const std::string& program, const std::string& expected_output, Recorded* out,
            const std::vector<std::string>& arguments = {}) {
  out->capture = (out->scratch.path() / "own.mfc").string();
  std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", out->capture, "--", program};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  e2e::CommandResult run = e2e::RunCommand(argv, 60);
  ASSERT_EQ(run.exit_code, 0) << e2e::ShellCommandLine(argv);
  ASSERT_EQ(run.standard_output, expected_output);
  std::string failure;
  out->summary = e2e::ReportJson(MEMFRAME_CLI_PATH, out->capture, {"summary"}, &failure);
  ASSERT_FALSE(out->summary.is_discarded()) << failure;
  const json sites = e2e::ReportJson(MEMFRAME_CLI_PATH, out->capture, {"sites", "--all-frames"}, &failure);
  ASSERT_FALSE(sites.is_discarded()) << failure;
  out->sites = e2e::OneScopeRows(sites);
  e2e::CommandResult text = e2e::RunCommand({MEMFRAME_CLI_PATH, "report", out->capture, "summary"}, 60);
  ASSERT_EQ(text.exit_code, 0);
  out->summary_text = text.standard_output;
}

void ExpectTheWorkloadExactly(const Recorded& r) {
  std::vector<json> sites = e2e::SitesWithFunctionInStack(r.sites, kWorkloadFunction);
  e2e::SiteTotals totals = e2e::SumSites(sites);
  EXPECT_EQ(totals.allocations, kWorkloadBlocks) << r.sites.dump(1);
  EXPECT_EQ(totals.bytes, kWorkloadBytes);
  // One line of the workload: the site is that line in every thread.
  for (const json& site : sites) EXPECT_TRUE(e2e::StackContains(site, kWorkloadFunction));
}

// The rounds of UseAllocatorApi (or `function`; host_truth.h), every block
// freed.
void ExpectTheApiCallsExactly(const Recorded& r, int blocks_per_round, uint64_t bytes_per_round,
                              const char* function = "UseAllocatorApi") {
  std::vector<json> sites = e2e::SitesWithFunctionInStack(r.sites, function);
  e2e::SiteTotals totals = e2e::SumSites(sites);
  EXPECT_EQ(totals.allocations, static_cast<uint64_t>(kApiRounds * blocks_per_round)) << r.sites.dump(1);
  EXPECT_EQ(totals.bytes, kApiRounds * bytes_per_round);
  // Every free was of a block seen allocated, and no block was recorded
  // twice (a second record of one allocation lands on a live block).
  EXPECT_EQ(r.summary["unknown_frees"], 0) << r.summary_text;
  EXPECT_EQ(r.summary["allocs_over_live"], 0) << r.summary_text;
}

void ExpectNativeOutput(const std::string& program, const std::string& output,
                        const std::vector<std::string>& arguments = {}) {
  std::vector<std::string> argv = {program};
  argv.insert(argv.end(), arguments.begin(), arguments.end());
  e2e::CommandResult native = e2e::RunCommand(argv, 30);
  EXPECT_EQ(native.exit_code, 0);
  EXPECT_EQ(native.standard_output, output);
}

TEST(OwnAllocator, MimallocsOwnApiFromItsLibraryIsRecordedOnceExactly) {
  std::string program = MEMFRAME_MIMALLOC_API_PATH;
  if (program.empty()) GTEST_SKIP() << "Debian's libmimalloc.so (libmimalloc-dev) was not found at configure time";
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(program, "mimalloc api done\n", &r));
  ExpectTheApiCallsExactly(r, kMimallocApiBlocksPerRound, kMimallocApiBytesPerRound);
  const json& apis = r.summary["capture"]["allocator_apis"];
  ASSERT_EQ(apis.size(), 1u) << apis.dump();
  EXPECT_EQ(apis[0]["name"], "mimalloc");
  EXPECT_NE(apis[0]["library"].get<std::string>().find("libmimalloc.so"), std::string::npos);
  std::vector<std::string> hooked = apis[0]["hooked"];
  for (const char* name : {"mi_malloc", "mi_calloc", "mi_zalloc", "mi_malloc_aligned", "mi_new", "mi_realloc",
                           "mi_posix_memalign", "mi_free", "mi_free_size"})
    EXPECT_NE(std::find(hooked.begin(), hooked.end(), name), hooked.end()) << name;
  EXPECT_NE(r.summary_text.find("note: calls to mimalloc's own API in libmimalloc.so.2 are recorded (mi_malloc, "
                                "mi_zalloc, mi_malloc_small, mi_zalloc_small, mi_valloc and " +
                                std::to_string(hooked.size() - 5) + " more)\n"),
            std::string::npos)
      << r.summary_text;
  EXPECT_TRUE(r.summary["capture"]["own_allocator"].is_null());
  ExpectNativeOutput(program, "mimalloc api done\n");
}

TEST(OwnAllocator, JemallocsAllocxApiFromItsLibraryIsRecordedExactly) {
  std::string program = MEMFRAME_JEMALLOC_API_PATH;
  if (program.empty()) GTEST_SKIP() << "Debian's libjemalloc.so (libjemalloc-dev) was not found at configure time";
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(program, "jemalloc api done\n", &r));
  ExpectTheApiCallsExactly(r, kJemallocApiBlocksPerRound, kJemallocApiBytesPerRound);
  const json& apis = r.summary["capture"]["allocator_apis"];
  ASSERT_EQ(apis.size(), 1u) << apis.dump();
  EXPECT_EQ(apis[0]["hooked"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"mallocx", "rallocx", "xallocx", "sdallocx", "dallocx"}));
  EXPECT_NE(r.summary_text.find("note: calls to jemalloc's own API in libjemalloc.so.2 are recorded (mallocx, "
                                "rallocx, xallocx, sdallocx, dallocx)\n"),
            std::string::npos)
      << r.summary_text;
  ExpectNativeOutput(program, "jemalloc api done\n");
}

// A plugin that links libmimalloc, dlopen'ed by a program that does not:
// the writer thread sees the new modules and hooks the plugin's imports.
// The program waits for that (--wait-for-hooks), so every call is recorded.
TEST(OwnAllocator, MimallocsApiInAPluginDlopenedLaterIsRecordedExactly) {
  std::string program = MEMFRAME_LATE_MIMALLOC_PATH;
  if (program.empty()) GTEST_SKIP() << "Debian's libmimalloc.so (libmimalloc-dev) was not found at configure time";
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(
      Record(program, "plugin api done\n", &r, {"plugin", MEMFRAME_MIMALLOC_PLUGIN_PATH, "--wait-for-hooks"}));
  ExpectTheApiCallsExactly(r, kPluginApiBlocksPerRound, kPluginApiBytesPerRound, "UsePluginApi");
  ExpectNativeOutput(program, "plugin api done\n", {"plugin", MEMFRAME_MIMALLOC_PLUGIN_PATH});
}

// The same plugin, whose relocation takes 300 ms (an IFUNC resolver that
// sleeps, mimalloc_plugin.cc): the writer sees it listed before the loader
// is done with it, and must wait (the loader faults on a slot page made
// read-only under it).
TEST(OwnAllocator, APluginSeenWhileItIsRelocatedIsHookedOnlyAfter) {
  std::string program = MEMFRAME_LATE_MIMALLOC_PATH;
  if (program.empty()) GTEST_SKIP() << "Debian's libmimalloc.so (libmimalloc-dev) was not found at configure time";
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(
      Record(program, "plugin api done\n", &r, {"plugin", MEMFRAME_SLOW_MIMALLOC_PLUGIN_PATH, "--wait-for-hooks"}));
  ExpectTheApiCallsExactly(r, kPluginApiBlocksPerRound, kPluginApiBytesPerRound, "UsePluginApi");
}

// Pointers from dlsym on the handle of a libmimalloc dlopen'ed at once
// before (no pass of the writer's between): the hooks, recorded exactly.
// RTLD_DEFAULT still does not find the locally loaded library.
TEST(OwnAllocator, MimallocsApiFromDlsymOnAHandleIsRecordedExactly) {
  std::string program = MEMFRAME_LATE_MIMALLOC_PATH;
  if (program.empty()) GTEST_SKIP() << "Debian's libmimalloc.so (libmimalloc-dev) was not found at configure time";
  const std::string output = "RTLD_DEFAULT mi_malloc: absent\ndlsym api done\n";
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(program, output, &r, {"dlsym"}));
  ExpectTheApiCallsExactly(r, kDlsymApiBlocksPerRound, kDlsymApiBytesPerRound, "UseDlsymApi");
  ExpectNativeOutput(program, output, {"dlsym"});
}

// The agent hooks these APIs without defining their names: a program that
// checks for the library finds it absent under memframe too.
TEST(OwnAllocator, AnAllocatorsApiThatIsNotLoadedStaysAbsent) {
  const std::string absent =
      "mallocx: weak absent, dlsym absent\n"
      "mi_malloc: weak absent, dlsym absent\n"
      "mi_free: weak absent, dlsym absent\n";
  ExpectNativeOutput(MEMFRAME_ALLOCATOR_API_ABSENT_PATH, absent);
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(MEMFRAME_ALLOCATOR_API_ABSENT_PATH, absent, &r));
  EXPECT_TRUE(r.summary["capture"]["allocator_apis"].empty());
}

TEST(OwnAllocator, StaticJemallocsAllocxApiIsPatchedAtItsEntriesAndRecordedExactly) {
  std::string program = MEMFRAME_JEMALLOC_API_STATIC_PATH;
  if (program.empty()) GTEST_SKIP() << "Debian's libjemalloc.a (libjemalloc-dev) was not found at configure time";
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(program, "jemalloc api done\n", &r));
  ExpectTheApiCallsExactly(r, kJemallocApiBlocksPerRound, kJemallocApiBytesPerRound);
  const json& own = r.summary["capture"]["own_allocator"];
  std::vector<std::string> hooked = own["hooked"];
  EXPECT_EQ(std::vector<std::string>(hooked.end() - 5, hooked.end()),
            (std::vector<std::string>{"mallocx", "rallocx", "xallocx", "sdallocx", "dallocx"}));
  EXPECT_TRUE(own["refused"].empty()) << own.dump();
  EXPECT_TRUE(r.summary["capture"]["allocator_apis"].empty());
  ExpectNativeOutput(program, "jemalloc api done\n");
}

TEST(OwnAllocator, StaticJemallocIsHookedAndItsBlocksAreRecordedExactly) {
  std::string program = MEMFRAME_STATIC_JEMALLOC_PATH;
  if (program.empty()) GTEST_SKIP() << "Debian's libjemalloc.a (libjemalloc-dev) was not found at configure time";
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(program, "static jemalloc done\n", &r));
  const json& own = r.summary["capture"]["own_allocator"];
  EXPECT_EQ(own["name"], "jemalloc");
  // Debian's libjemalloc.a: the C family less pvalloc, no operator new, and
  // its own *allocx API.
  std::vector<std::string> family = kFamily;
  family.erase(family.end() - 1);
  family.insert(family.end(), {"mallocx", "rallocx", "xallocx", "sdallocx", "dallocx"});
  EXPECT_EQ(own["hooked"].get<std::vector<std::string>>(), family);
  EXPECT_TRUE(own["refused"].empty()) << own.dump();
  ExpectTheWorkloadExactly(r);
  EXPECT_NE(r.summary_text.find("note: the executable's own malloc (jemalloc) was hooked by entry patch (malloc, "
                                "calloc, realloc, free, posix_memalign, aligned_alloc, memalign, valloc, mallocx, "
                                "rallocx, xallocx, sdallocx, dallocx)\n"),
            std::string::npos)
      << r.summary_text;
}

TEST(OwnAllocator, AHeapOfTheProgramsOwnIsHookedAndItsBlocksAreRecordedExactly) {
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(MEMFRAME_REENTRY_ALLOCATOR_PATH, "reentry allocator done, 1 heap chunks\n", &r));
  const json& own = r.summary["capture"]["own_allocator"];
  EXPECT_EQ(own["name"], "");
  // Built at -O1, its entries are not 8-byte aligned: patched all the same.
  EXPECT_EQ(own["hooked"].get<std::vector<std::string>>(), kFamily);
  EXPECT_TRUE(own["refused"].empty()) << own.dump();
  ExpectTheWorkloadExactly(r);
  EXPECT_NE(r.summary_text.find("note: the executable's own malloc (a heap of its own) was hooked by entry patch"),
            std::string::npos)
      << r.summary_text;
}

TEST(OwnAllocator, EntriesTheRelocatorRefusesAreSaidAndTheProgramRunsUnharmed) {
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(MEMFRAME_REFUSED_ENTRIES_PATH, "reentry allocator done, 1 heap chunks\n", &r));
  const json& own = r.summary["capture"]["own_allocator"];
  const std::string why = "a call (a thread inside the callee would return into the patch)";
  EXPECT_EQ(own["refused"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"malloc: " + why, "free: " + why}));
  std::vector<std::string> hooked = kFamily;
  std::erase(hooked, "malloc");
  std::erase(hooked, "free");
  EXPECT_EQ(own["hooked"].get<std::vector<std::string>>(), hooked);
  // Its malloc and free are not recorded: the workload's blocks are not there.
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(r.sites, kWorkloadFunction).empty());
  EXPECT_NE(r.summary_text.find("note: the executable's own malloc (a heap of its own) was not hooked: malloc: " +
                                why + "; free: " + why + "; their calls are not recorded (hooked by entry patch: "
                                "calloc, realloc, posix_memalign, aligned_alloc, memalign, valloc, pvalloc)\n"),
            std::string::npos)
      << r.summary_text;
  e2e::CommandResult native = e2e::RunCommand({MEMFRAME_REFUSED_ENTRIES_PATH}, 30);
  EXPECT_EQ(native.exit_code, 0);
  EXPECT_EQ(native.standard_output, "reentry allocator done, 1 heap chunks\n");
}

// Global operator new and delete of the executable's own, over glibc's
// malloc (own_new.cc): each array once, as new[], the malloc inside not
// recorded again, and every delete[] matched.
TEST(OwnAllocator, TheExecutablesOwnOperatorNewIsHookedAndEachArrayRecordedOnce) {
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(MEMFRAME_OWN_NEW_PATH, "own new done\n", &r));
  const json& own = r.summary["capture"]["own_allocator"];
  EXPECT_EQ(own["name"], "");
  EXPECT_EQ(own["hooked"].get<std::vector<std::string>>(),
            (std::vector<std::string>{"_Znwm", "_Znam", "_ZdlPv", "_ZdaPv", "_ZdlPvm", "_ZdaPvm"}));
  EXPECT_TRUE(own["refused"].empty()) << own.dump();
  std::vector<json> sites = e2e::SitesWithFunctionInStack(r.sites, "NewAndDelete");
  e2e::SiteTotals totals = e2e::SumSites(sites);
  EXPECT_EQ(totals.allocations, static_cast<uint64_t>(kOwnNewBlocks)) << r.sites.dump(1);
  EXPECT_EQ(totals.bytes, kOwnNewBlocks * 100u + kOwnNewBlocks * (kOwnNewBlocks - 1) / 2);
  std::string failure;
  json mismatches = e2e::ReportJson(MEMFRAME_CLI_PATH, r.capture, {"mismatches"}, &failure);
  ASSERT_FALSE(mismatches.is_discarded()) << failure;
  EXPECT_EQ(mismatches["total"], 0) << mismatches.dump(1);
  EXPECT_NE(r.summary_text.find("note: the executable's own operator new (a heap of its own) was hooked by entry "
                                "patch (_Znwm, _Znam, _ZdlPv, _ZdaPv, _ZdlPvm, _ZdaPvm)\n"),
            std::string::npos)
      << r.summary_text;
}

TEST(OwnAllocator, AnOrdinaryProgramHasNoOwnAllocator) {
  Recorded r;
  ASSERT_NO_FATAL_FAILURE(Record(MEMFRAME_NAMED_WORKER_PATH, "named worker done\n", &r));
  EXPECT_TRUE(r.summary["capture"]["own_allocator"].is_null());
  EXPECT_EQ(r.summary_text.find("own malloc"), std::string::npos);
}

}  // namespace
}  // namespace memframe
