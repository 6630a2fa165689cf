// The man pages and bash completion come from the command list and the
// report registry (docs_generator.h): every command and report is in them.
#include "docs_generator.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "commands.h"
#ifdef MEMFRAME_WITH_ANALYSIS
#include "memframe/report/report_registry.h"
#endif

namespace memframe::injector {
namespace {

std::string Slurp(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(DocsGenerator, AManPagePerCommandAndACompletionThatNamesThemAll) {
  std::filesystem::path dir = std::filesystem::path(testing::TempDir()) / "memframe-docs-test";
  std::filesystem::remove_all(dir);
  std::string error;
  ASSERT_TRUE(WriteDocs(dir.string(), &error)) << error;
  const std::string top = Slurp(dir / "man" / "man1" / "memframe.1");
  const std::string completion = Slurp(dir / "bash-completion" / "completions" / "memframe");
  EXPECT_EQ(top.rfind(".TH MEMFRAME 1 ", 0), 0u) << top;
  EXPECT_NE(completion.find("complete -o filenames -F _memframe memframe"), std::string::npos);
  for (const Command& command : Commands()) {
    const std::string page = Slurp(dir / "man" / "man1" / ("memframe-" + command.name + ".1"));
    EXPECT_NE(page.find(".SH NAME\nmemframe-" + command.name + " \\- "), std::string::npos) << command.name;
    EXPECT_NE(page.find(".B memframe " + command.name), std::string::npos) << page;
    EXPECT_NE(top.find(".B memframe " + command.name + " "), std::string::npos) << command.name;
    EXPECT_NE(completion.find("    " + command.name + ")"), std::string::npos) << command.name;
  }
  const std::string run = Slurp(dir / "man" / "man1" / "memframe-run.1");
  EXPECT_NE(run.find("\\-\\-stack\\-depth"), std::string::npos) << run;
  EXPECT_NE(completion.find("--stack-depth"), std::string::npos);
#ifdef MEMFRAME_WITH_ANALYSIS
  const std::string report = Slurp(dir / "man" / "man1" / "memframe-report.1");
  for (const analysis::ReportDef& r : analysis::ReportRegistry()) {
    EXPECT_NE(report.find(".SS " + r.name + "\n"), std::string::npos) << r.name;
    EXPECT_NE(completion.find(" " + r.name), std::string::npos) << r.name;
  }
#endif
  std::filesystem::remove_all(dir);
}

TEST(DocsGenerator, UnknownCommandHasNoPage) {
  std::ostringstream out;
  EXPECT_FALSE(WriteManPage("frobnicate", out));
}

}  // namespace
}  // namespace memframe::injector
