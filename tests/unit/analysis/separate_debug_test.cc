// Symbols from separate debug info: the library is stripped of DWARF and
// points at its .debug file with .gnu_debuglink. file:line can only come
// from that file.
#include <dlfcn.h>
#include <gtest/gtest.h>
#include <link.h>

#include <cstring>

#include "memframe/analysis/symbolizer.h"

namespace memframe::analysis {
namespace {

Module ModuleOf(const char* path) {
  Module module;
  module.path = path;
  struct Search {
    Module* module;
  } search{&module};
  dl_iterate_phdr(
      [](dl_phdr_info* info, size_t, void* data) {
        auto* s = static_cast<Search*>(data);
        if (!info->dlpi_name || strcmp(info->dlpi_name, s->module->path.c_str()) != 0) return 0;
        s->module->load_bias = info->dlpi_addr;
        for (int i = 0; i < info->dlpi_phnum; ++i)
          if (info->dlpi_phdr[i].p_type == PT_LOAD)
            s->module->segments.push_back({info->dlpi_phdr[i].p_vaddr, info->dlpi_phdr[i].p_memsz});
        return 1;
      },
      &search);
  return module;
}

// debuglink_function of the library at `path`, symbolized as a return
// address just inside it; expects its name, file and line.
void ExpectTheFunctionsFileAndLine(const char* path) {
  void* lib = dlopen(path, RTLD_NOW);
  ASSERT_NE(lib, nullptr) << dlerror();
  void* function = dlsym(lib, "debuglink_function");
  ASSERT_NE(function, nullptr);
  Module module = ModuleOf(path);
  ASSERT_FALSE(module.segments.empty());
  Symbolizer symbolizer({module});
  // As a return address just inside the function: the symbolizer looks up
  // address - 1.
  const auto& frames = symbolizer.Symbolize(reinterpret_cast<uint64_t>(function) + 1);
  ASSERT_FALSE(frames.empty());
  EXPECT_EQ(frames.back().function, "debuglink_function");
  EXPECT_NE(frames.back().file.find("debuglink_lib.cc"), std::string::npos) << frames.back().file;
  EXPECT_EQ(frames.back().line, static_cast<uint32_t>(MEMFRAME_DEBUGLINK_LINE));
  dlclose(lib);
}

TEST(SeparateDebugInfo, StrippedLibraryResolvesFileAndLineThroughDebuglink) {
  ExpectTheFunctionsFileAndLine(MEMFRAME_DEBUGLINK_LIB);
}

// clang writes no .debug_aranges by default: a game built with it had
// function names but no file:line.
TEST(SeparateDebugInfo, LibraryWithoutArangesResolvesFileAndLine) {
  ExpectTheFunctionsFileAndLine(MEMFRAME_NO_ARANGES_LIB);
}

}  // namespace
}  // namespace memframe::analysis
