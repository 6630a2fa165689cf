// The lists of hooked functions follow their one source: exports.map (what
// the agent interposes) against attach's import list (hooked_imports.h), and
// the docs against the frame sources' table (memframe/frame_sources.h).
#include <cxxabi.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <set>
#include <sstream>
#include <string>

#include "attach/got_patcher.h"
#include "attach/hooked_imports.h"
#include "exports_map.h"
#include "memframe/frame_sources.h"

namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

std::string Demangled(const char* symbol) {
  if (symbol[0] != '_' || symbol[1] != 'Z') return symbol;
  int status = 0;
  char* text = abi::__cxa_demangle(symbol, nullptr, nullptr, &status);
  std::string result = status == 0 ? text : symbol;
  free(text);
  return result;
}

bool IsPresentOrLookup(const std::string& name) {
  if (memframe::wire::FindFrameSource(name.c_str(), memframe::wire::kFrameLinux)) return true;
#define MEMFRAME_X(symbol) \
  if (name == #symbol) return true;
  MEMFRAME_PRESENT_LOOKUPS(MEMFRAME_X)
#undef MEMFRAME_X
  return false;
}

// A GL or Vulkan object or context call: patched from its table (gl_hooks.h),
// which the lookups and the patcher share.
bool IsGpuTableCall(const std::string& name) {
  const bool gpu = name.rfind("gl", 0) == 0 || name.rfind("vk", 0) == 0 || name.rfind("egl", 0) == 0;
  return gpu && !IsPresentOrLookup(name);
}

TEST(HookTables, AttachPatchesEveryImportTheAgentExports) {
  const std::set<std::string> exported = memframe::test::ExportsMapNames(MEMFRAME_SOURCE_DIR "/agent/exports.map");
  std::set<std::string> hooked;
  for (const char* name : memframe::agent::kHookedImportNames) {
    hooked.insert(Demangled(name));
    EXPECT_TRUE(exported.count(Demangled(name))) << name << " is patched at an attach but not exported";
  }
  for (const std::string& name : exported) {
    // The annotation API is looked up by name (annotate.h), never imported.
    if (name.rfind("memframe_", 0) == 0 || IsGpuTableCall(name)) continue;
    EXPECT_TRUE(hooked.count(name)) << name << " is exported but an attach leaves its imports unpatched";
  }
  EXPECT_TRUE(hooked.count("posix_spawn"));
  EXPECT_TRUE(hooked.count("posix_spawnp"));
}

TEST(HookTables, FixedMarkersNameEveryLinuxPresentInWireIdOrder) {
  using namespace memframe::wire;
  uint32_t id = kFirstPresentMarker;
  for (const FrameSource& source : kFrameSources) {
    if (source.platform != kFrameLinux) continue;
    EXPECT_EQ(source.wire_id, id);
    EXPECT_STREQ(FixedMarkerName(id), source.name);
    ++id;
  }
  EXPECT_EQ(id, kPresentMarkerEnd);
  EXPECT_EQ(id, kMarkerTimeSlice);
  EXPECT_STREQ(FixedMarkerName(kMarkerTimeSlice), "time slice");
  EXPECT_STREQ(FixedMarkerName(kMarkerAnnotation), "memframe_frame_mark");
  EXPECT_EQ(FixedMarkerName(kFirstDynamicMarker), nullptr);
  EXPECT_EQ(FixedMarkerName(0), nullptr);
}

// The docs name every present: INTERNALS.md the Linux ones, WINDOWS.md the
// Windows ones (a name in backquotes, as the docs write them).
TEST(HookTables, DocsNameEveryPresent) {
  using namespace memframe::wire;
  const std::string linux_doc = ReadFile(MEMFRAME_SOURCE_DIR "/docs/INTERNALS.md");
  const std::string windows_doc = ReadFile(MEMFRAME_SOURCE_DIR "/docs/WINDOWS.md");
  ASSERT_FALSE(linux_doc.empty());
  ASSERT_FALSE(windows_doc.empty());
  for (const FrameSource& source : kFrameSources) {
    const std::string& doc = source.platform == kFrameLinux ? linux_doc : windows_doc;
    EXPECT_NE(doc.find("`" + std::string(source.name) + "`"), std::string::npos)
        << source.name << " is missing from " << (source.platform == kFrameLinux ? "INTERNALS.md" : "WINDOWS.md");
  }
}

}  // namespace

// An attach patches every release before any allocation (got_patcher.h,
// PatchRank): each import name of attach's list and of the allocators' own
// APIs is in the rank its name says.
TEST(HookTables, AttachPatchesReleasesBeforeAllocations) {
  using memframe::agent::RankOf;
  for (const char* name : {"free", "_ZdlPv", "_ZdaPvm", "_ZdlPvSt11align_val_tRKSt9nothrow_t", "munmap", "mi_free",
                           "je_sdallocx", "dallocx", "glDeleteTextures", "vkFreeMemory", "vkDestroyImage"})
    EXPECT_EQ(RankOf(name), memframe::agent::kReleases) << name;
  for (const char* name : {"realloc", "reallocarray", "mremap", "mi_realloc", "rallocx", "xallocx"})
    EXPECT_EQ(RankOf(name), memframe::agent::kReallocates) << name;
  for (const char* name : {"malloc", "calloc", "posix_memalign", "_Znwm", "_ZnamSt11align_val_t", "mmap", "mmap64",
                           "mallocx", "mi_malloc", "glTexImage2D", "vkAllocateMemory", "dlopen", "glXSwapBuffers"})
    EXPECT_EQ(RankOf(name), memframe::agent::kAllocatesAndOthers) << name;
  // Every release-like name of attach's own list is patched first.
  for (const char* name : memframe::agent::kHookedImportNames) {
    const std::string n = name;
    const bool releases = n == "free" || n.rfind("_Zdl", 0) == 0 || n.rfind("_Zda", 0) == 0 || n == "munmap";
    if (releases) {
      EXPECT_EQ(RankOf(name), memframe::agent::kReleases) << name;
    }
  }
}
