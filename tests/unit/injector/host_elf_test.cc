// The host side's one ELF reader (host_elf.h, on libelf), on files whose
// truth is known: this test's own program, a static one, libc, and a file
// that is no ELF at all.
#include "host_elf.h"

#include <elf.h>
#include <gtest/gtest.h>

#include <fstream>
#include <set>
#include <string>

#include "fake_agent_client.h"

namespace memframe::injector {
namespace {

std::set<std::string> Functions(const HostElf& file, bool dynamic_only) {
  std::set<std::string> names;
  file.ForEachDefinedFunction(dynamic_only, [&](std::string_view name, uint64_t value, bool) {
    EXPECT_NE(value, 0u) << name;
    names.insert(std::string(name));
    return true;
  });
  return names;
}

TEST(HostElf, ReadsThisProgram) {
  HostElf self("/proc/self/exe");
  ASSERT_TRUE(self.valid());
  EXPECT_EQ(self.elf_class(), ELFCLASS64);
  EXPECT_EQ(self.machine(), EM_X86_64);
  EXPECT_TRUE(self.HasInterpreter());
  EXPECT_GT(self.ProgramHeaderCount(), 0u);
  EXPECT_TRUE(Functions(self, false).count("main"));  // .symtab: a global of the executable
}

TEST(HostElf, AStaticProgramHasNoInterpreter) {
  HostElf file(MEMFRAME_TEST_STATIC_PROGRAM);
  ASSERT_TRUE(file.valid());
  EXPECT_FALSE(file.HasInterpreter());
}

// What attach looks up in the game's libc: exported functions from
// .dynsym, and the first PT_LOAD a load bias is taken against.
TEST(HostElf, FindsLibcsExportedFunctions) {
  HostElf libc("/lib/x86_64-linux-gnu/libc.so.6");
  ASSERT_TRUE(libc.valid());
  const std::set<std::string> exported = Functions(libc, true);
  for (const char* name : {"malloc", "free", "dlopen", "posix_spawn"}) EXPECT_TRUE(exported.count(name)) << name;
  EXPECT_EQ(libc.FirstLoadAddress(), 0u);  // position independent
  int seen = 0;  // `visit` returning false stops the walk
  libc.ForEachDefinedFunction(true, [&](std::string_view, uint64_t, bool) { return ++seen < 3; });
  EXPECT_EQ(seen, 3);
}

TEST(HostElf, AFileThatIsNoElfYieldsNothing) {
  test::TempDir dir;
  const std::string path = dir.File("notes.txt");
  std::ofstream(path) << "\x7f" "ELF but nothing after the magic";
  HostElf file(path);
  EXPECT_FALSE(file.valid());
  EXPECT_FALSE(file.HasInterpreter());
  EXPECT_TRUE(Functions(file, false).empty());
  EXPECT_FALSE(HostElf(dir.File("missing")).valid());
}

}  // namespace
}  // namespace memframe::injector
