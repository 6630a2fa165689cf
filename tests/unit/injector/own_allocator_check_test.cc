#include "own_allocator_check.h"

#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "fake_agent_client.h"

namespace memframe::injector {
namespace {

const char kHooked[] =
    ", which the loader binds before any preloaded library: the agent patches its entry points before main, and "
    "the capture's notes say which it could not";

TEST(OwnAllocatorWarning, NamesAStaticallyLinkedJemalloc) {
  std::string program = MEMFRAME_TEST_STATIC_JEMALLOC;
  if (program.empty()) GTEST_SKIP() << "no libjemalloc.a (Debian: libjemalloc-dev)";
  EXPECT_EQ(OwnAllocatorWarning(program), program + " defines its own malloc (statically linked jemalloc)" + kHooked +
                                              "; its own API (mallocx, ...) is patched too");
}

TEST(OwnAllocatorWarning, NamesAnExecutableThatDefinesMalloc) {
  std::string program = MEMFRAME_TEST_OWN_MALLOC_PROGRAM;
  EXPECT_EQ(OwnAllocatorWarning(program), program + " defines its own malloc" + kHooked);
}

TEST(OwnAllocatorWarning, NamesAnExecutableThatDefinesOperatorNew) {
  std::string program = MEMFRAME_TEST_OWN_NEW_PROGRAM;
  EXPECT_EQ(OwnAllocatorWarning(program), program + " defines its own operator new" + kHooked);
}

TEST(OwnAllocatorWarning, SaysNothingForOrdinaryPrograms) {
  EXPECT_EQ(OwnAllocatorWarning(MEMFRAME_TEST_EXIT_PROGRAM), "");  // C
  EXPECT_EQ(OwnAllocatorWarning(MEMFRAME_TEST_ORDINARY_CXX_PROGRAM), "");  // C++, uses new
  EXPECT_EQ(OwnAllocatorWarning("/bin/sh"), "");
}

TEST(OwnAllocatorWarning, SaysNothingForFilesItCannotRead) {
  test::TempDir dir;
  std::string truncated = dir.File("truncated");
  std::ofstream(truncated) << "\x7f" "ELF\x02\x01\x01";
  EXPECT_EQ(OwnAllocatorWarning(truncated), "");
  EXPECT_EQ(OwnAllocatorWarning(dir.File("missing")), "");
}

}  // namespace
}  // namespace memframe::injector
