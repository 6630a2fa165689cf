#include "program_check.h"

#include <gtest/gtest.h>
#include <sys/stat.h>

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

}  // namespace
}  // namespace memframe::injector
