#include "memframe/analysis/symbolizer.h"

#include <gtest/gtest.h>

#include "memframe/paths.h"
#include "self_module.h"

// Outside any anonymous namespace so the expected names are simple.
namespace symbolizer_test {

// One line, so that whichever instruction the entry maps to, the line is this.
constexpr int kTargetLine = __LINE__ + 1;
__attribute__((noinline)) int Target(int x) { asm volatile("" ::: "memory"); return x * 3 + 1; }

constexpr int kInlinedCallLine = __LINE__ + 1;
__attribute__((always_inline)) inline uint64_t InlinedHelper() { return memframe::testing::CallerReturnAddress(); }

}  // namespace symbolizer_test

namespace memframe::analysis {
namespace {

TEST(Symbolizer, FunctionEntryResolvesToNameFileAndLine) {
  Symbolizer symbolizer({testing::SelfModule()});
  // Symbolize treats its argument as a return address (looks up address - 1).
  uint64_t entry = reinterpret_cast<uint64_t>(&symbolizer_test::Target);
  const auto& frames = symbolizer.Symbolize(entry + 1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].function, "symbolizer_test::Target(int)");
  EXPECT_EQ(Basename(frames[0].file), "symbolizer_test.cc");
  EXPECT_EQ(frames[0].line, static_cast<uint32_t>(symbolizer_test::kTargetLine));
  EXPECT_EQ(frames[0].module, testing::SelfModule().path);
  EXPECT_EQ(frames[0].address, entry + 1);
  EXPECT_FALSE(frames[0].inlined);
}

TEST(Symbolizer, ReturnAddressResolvesToTheCallLine) {
  Symbolizer symbolizer({testing::SelfModule()});
  uint64_t return_address = testing::CallerReturnAddress(); const int call_line = __LINE__;
  const auto& frames = symbolizer.Symbolize(return_address);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_NE(frames[0].function.find("ReturnAddressResolvesToTheCallLine_Test::TestBody()"), std::string::npos)
      << frames[0].function;
  EXPECT_EQ(Basename(frames[0].file), "symbolizer_test.cc");
  EXPECT_EQ(frames[0].line, static_cast<uint32_t>(call_line));
}

TEST(Symbolizer, InlinedCallsBecomeFramesInnermostFirst) {
  Symbolizer symbolizer({testing::SelfModule()});
  uint64_t return_address = symbolizer_test::InlinedHelper(); const int call_line = __LINE__;
  const auto& frames = symbolizer.Symbolize(return_address);
  ASSERT_EQ(frames.size(), 2u);
  EXPECT_TRUE(frames[0].inlined);
  EXPECT_EQ(frames[0].function, "symbolizer_test::InlinedHelper()");
  EXPECT_EQ(frames[0].line, static_cast<uint32_t>(symbolizer_test::kInlinedCallLine));
  EXPECT_FALSE(frames[1].inlined);
  EXPECT_NE(frames[1].function.find("InlinedCallsBecomeFramesInnermostFirst_Test::TestBody()"), std::string::npos);
  EXPECT_EQ(frames[1].line, static_cast<uint32_t>(call_line));
  EXPECT_EQ(Basename(frames[1].file), "symbolizer_test.cc");
}

TEST(Symbolizer, MissingFileGivesModulePlusOffset) {
  Module gone{"/nonexistent/libgone.so", 0x10000, {{0, 0x1000}}, "", {}};
  Symbolizer symbolizer({gone});
  const auto& frames = symbolizer.Symbolize(0x10123);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].function, "libgone.so+0x123");
  EXPECT_EQ(frames[0].module, "/nonexistent/libgone.so");
  EXPECT_EQ(frames[0].file, "");
  EXPECT_EQ(frames[0].line, 0u);
  EXPECT_EQ(symbolizer.Symbolize(0x42)[0].function, "0x42");  // in no module
  EXPECT_EQ(symbolizer.Symbolize(0x42)[0].module, "");
}

TEST(Symbolizer, RebuiltFileIsNotTrusted) {
  Module self = testing::SelfModule();
  self.build_id = "not the real build id";
  Symbolizer symbolizer({self});
  uint64_t entry = reinterpret_cast<uint64_t>(&symbolizer_test::Target);
  const auto& frames = symbolizer.Symbolize(entry + 1);
  ASSERT_EQ(frames.size(), 1u);
  EXPECT_EQ(frames[0].file, "");
  EXPECT_NE(frames[0].function.find("+0x"), std::string::npos) << frames[0].function;
}

TEST(Symbolizer, StackExpandsEveryAddress) {
  Symbolizer symbolizer({testing::SelfModule()});
  uint64_t entry = reinterpret_cast<uint64_t>(&symbolizer_test::Target);
  auto stack = symbolizer.SymbolizeStack({entry + 1, 0x42, entry + 1});
  ASSERT_EQ(stack.size(), 3u);
  EXPECT_EQ(stack[1].function, "0x42");
  EXPECT_EQ(stack[2].function, stack[0].function);
}

}  // namespace
}  // namespace memframe::analysis
