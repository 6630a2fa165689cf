#include "program_check.h"

#include <elf.h>
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <cstring>

#include <filesystem>
#include <fstream>

#include "fake_agent_client.h"

namespace memframe::injector {
namespace {

std::string WriteFile(const std::string& path, const std::string& text, mode_t mode) {
  std::ofstream(path) << text;
  chmod(path.c_str(), mode);
  return path;
}

TEST(ResolveProgram, SearchesPath) {
  std::string path, error;
  ASSERT_TRUE(ResolveProgram("sh", &path, &error)) << error;
  EXPECT_EQ(path.substr(path.size() - 3), "/sh");
  EXPECT_EQ(path[0], '/');
}

TEST(ResolveProgram, ExplainsWhatIsMissing) {
  test::TempDir dir;
  std::string path, error;
  EXPECT_FALSE(ResolveProgram("memframe-no-such-program", &path, &error));
  EXPECT_EQ(error, "memframe-no-such-program: command not found");
  EXPECT_FALSE(ResolveProgram(dir.File("missing"), &path, &error));
  EXPECT_EQ(error, dir.File("missing") + ": No such file or directory");
  EXPECT_FALSE(ResolveProgram(dir.path(), &path, &error));
  EXPECT_EQ(error, dir.path() + ": Is a directory");
  std::string data = WriteFile(dir.File("data"), "not a program", 0644);
  EXPECT_FALSE(ResolveProgram(data, &path, &error));
  EXPECT_EQ(error, data + ": Permission denied");
}

TEST(WhyAgentCannotLoad, AcceptsDynamicProgramsAndScripts) {
  test::TempDir dir;
  EXPECT_EQ(WhyAgentCannotLoad("/bin/sh"), "");
  EXPECT_EQ(WhyAgentCannotLoad(WriteFile(dir.File("script"), "#!/bin/sh\nexit 0\n", 0755)), "");
}

TEST(WhyAgentCannotLoad, RefusesStaticPrograms) {
  std::string program = MEMFRAME_TEST_STATIC_PROGRAM;
  if (program.empty()) GTEST_SKIP() << "no static libc here (libc.a), so no static program to test with";
  EXPECT_EQ(WhyAgentCannotLoad(program),
            program + " is statically linked; LD_PRELOAD cannot load the agent into a static program");
}

TEST(WhyAgentCannotLoad, RefusesSetuidPrograms) {
  test::TempDir dir;
  std::string copy = dir.File("true");
  std::filesystem::copy_file("/bin/true", copy);
  struct stat st {};
  if (chmod(copy.c_str(), 04755) != 0 || stat(copy.c_str(), &st) != 0 || !(st.st_mode & S_ISUID)) {
    GTEST_SKIP() << "cannot set the setuid bit on " << copy;
  }
  EXPECT_EQ(WhyAgentCannotLoad(copy), copy + " is setuid; the loader ignores LD_PRELOAD for setuid programs");
}

TEST(WhyAgentCannotLoad, RefusesFilesThatAreNotPrograms) {
  test::TempDir dir;
  std::string text = WriteFile(dir.File("notes"), "echo hi\n", 0755);
  EXPECT_EQ(WhyAgentCannotLoad(text), text + " is neither an ELF program nor a #! script");
  std::string truncated_elf = WriteFile(dir.File("elf"), "\x7f" "ELF", 0755);
  EXPECT_EQ(WhyAgentCannotLoad(truncated_elf), truncated_elf + " is neither an ELF program nor a #! script");
}

// A dynamically linked i386 program as the loader sees it: an ELF header and
// a PT_INTERP program header, nothing more (no multilib needed to make one).
std::string Crafted32BitProgram() {
  Elf32_Ehdr header{};
  memcpy(header.e_ident, ELFMAG, SELFMAG);
  header.e_ident[EI_CLASS] = ELFCLASS32;
  header.e_ident[EI_DATA] = ELFDATA2LSB;
  header.e_ident[EI_VERSION] = EV_CURRENT;
  header.e_type = ET_DYN;
  header.e_machine = EM_386;
  header.e_version = EV_CURRENT;
  header.e_phoff = sizeof(Elf32_Ehdr);
  header.e_ehsize = sizeof(Elf32_Ehdr);
  header.e_phentsize = sizeof(Elf32_Phdr);
  header.e_phnum = 1;
  Elf32_Phdr interp{};
  interp.p_type = PT_INTERP;
  std::string bytes(reinterpret_cast<const char*>(&header), sizeof(header));
  bytes.append(reinterpret_cast<const char*>(&interp), sizeof(interp));
  return bytes;
}

TEST(WhyAgentCannotLoad, Refuses32BitProgramsBeforeLaunching) {
  test::TempDir dir;
  std::string program = WriteFile(dir.File("game32"), Crafted32BitProgram(), 0755);
  EXPECT_EQ(WhyAgentCannotLoad(program),
            program + " is a 32-bit program; the memframe agent is 64-bit and cannot be loaded into it");
}

}  // namespace
}  // namespace memframe::injector
