// The report registry (report_registry.h) and REPORTS.md agree: every
// report has a section headed by its synopsis, and every heading of the
// reports' part is a report's.
#include <sys/wait.h>

#include <cstdio>
#include <fstream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "memframe/report/export.h"
#include "memframe/report/report_registry.h"

namespace memframe::analysis {
namespace {

// The "## " headings before "# memframe export" (the other commands' part).
std::set<std::string> ReportHeadings() {
  std::ifstream in(MEMFRAME_REPORTS_MD);
  EXPECT_TRUE(in) << MEMFRAME_REPORTS_MD;
  std::set<std::string> headings;
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind("# memframe export", 0) == 0) break;
    if (line.rfind("## ", 0) == 0) headings.insert(line.substr(3));
  }
  return headings;
}

TEST(ReportRegistryTest, ReportsMdHasOneSectionPerReportHeadedByItsSynopsis) {
  std::set<std::string> headings = ReportHeadings();
  const std::set<std::string> shared = {"Definitions every report shares"};
  for (const ReportDef& report : ReportRegistry()) {
    const std::string synopsis = ReportSynopsis(report);
    EXPECT_EQ(headings.count(synopsis), 1u) << "REPORTS.md has no section \"## " << synopsis << "\"";
    headings.erase(synopsis);
  }
  for (const std::string& heading : headings)
    EXPECT_TRUE(shared.count(heading)) << "REPORTS.md heads a section \"## " << heading << "\" that no report has";
}

TEST(ReportRegistryTest, EveryReportHasHelpRenderersAndKnownOptions) {
  std::set<std::string> names;
  for (const ReportDef& report : ReportRegistry()) {
    EXPECT_TRUE(names.insert(report.name).second) << report.name << " twice";
    EXPECT_FALSE(report.help.empty()) << report.name;
    EXPECT_NE(report.text, nullptr) << report.name;
    EXPECT_NE(report.json, nullptr) << report.name;
    for (const ReportOptionDef* option : OptionsOf(report)) ASSERT_NE(option, nullptr) << report.name;
    std::ostringstream help;
    PrintReportHelp(report, help);
    for (const ReportOptionDef* option : OptionsOf(report))
      EXPECT_NE(help.str().find(option->name), std::string::npos) << report.name << " " << option->name;
  }
  EXPECT_EQ(ReportRegistry().front().name, "summary");
  EXPECT_EQ(FindReport(""), FindReport("summary"));
}

// What `memframe ARGS` prints on stdout, and its exit status.
std::pair<std::string, int> Cli(const std::string& args) {
  FILE* pipe = popen((std::string(MEMFRAME_CLI_PATH) + " " + args + " 2>&1").c_str(), "r");
  std::string out;
  char buffer[4096];
  for (size_t n; (n = fread(buffer, 1, sizeof buffer, pipe)) > 0;) out.append(buffer, n);
  int status = pclose(pipe);
  return {out, WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

// `memframe report CAPTURE REPORT --help` needs no capture to exist: the
// help is the registry's, whatever follows.
TEST(ReportRegistryTest, EveryReportHasItsHelpOnTheCommandLine) {
  for (const ReportDef& report : ReportRegistry()) {
    auto [out, code] = Cli("report no-such.mfc " + report.name + " --help");
    EXPECT_EQ(code, 0) << report.name << ": " << out;
    EXPECT_EQ(out.rfind("usage: memframe report CAPTURE ", 0), 0u) << out;
    for (const ReportOptionDef* option : OptionsOf(report))
      EXPECT_NE(out.find(option->name), std::string::npos) << report.name << " " << option->name;
  }
  auto [list, code] = Cli("report --help");
  EXPECT_EQ(code, 0);
  for (const ReportDef& report : ReportRegistry())
    EXPECT_NE(list.find("\n  " + report.name + " "), std::string::npos) << report.name << " is not in\n" << list;
}

// The export formats' registry (export.h) and REPORTS.md's export section
// agree: the synopsis names every format, and the section has one bullet
// per format, in the registry's order.
TEST(ExportRegistryTest, ReportsMdListsEveryFormatInOrder) {
  std::ifstream in(MEMFRAME_REPORTS_MD);
  std::string line, synopsis;
  std::vector<std::string> bullets;
  bool in_export = false;
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) in_export = line == "# memframe export";
    if (!in_export) continue;
    if (line.rfind("`memframe export CAPTURE", 0) == 0) synopsis = line.substr(0, line.find('`', 1) + 1);
    if (line.rfind("- `", 0) == 0) bullets.push_back(line.substr(3, line.find('`', 3) - 3));
  }
  EXPECT_EQ(synopsis, "`memframe export CAPTURE --format " + ExportFormatNames("|", "|") + " -o FILE [--force]`");
  std::vector<std::string> names;
  for (const ExportFormatDef& format : ExportFormats()) names.push_back(format.name);
  EXPECT_EQ(bullets, names);
}

// `memframe export --help` and its --format check are the registry's.
TEST(ExportRegistryTest, UsageAndValidationFollowTheRegistry) {
  auto [usage, code] = Cli("export --help");
  EXPECT_EQ(code, 0);
  EXPECT_EQ(usage.rfind("usage: memframe export CAPTURE --format " + ExportFormatNames("|", "|") + " -o FILE", 0), 0u)
      << usage;
  for (const ExportFormatDef& format : ExportFormats()) {
    EXPECT_NE(format.write, nullptr) << format.name;
    const std::string first_line = format.help.substr(0, format.help.find('\n'));
    EXPECT_NE(usage.find("\n  " + format.name + " "), std::string::npos) << format.name << " missing from\n" << usage;
    EXPECT_NE(usage.find(first_line), std::string::npos) << first_line;
    // Accepted by --format: the failure is the capture's, not the format's.
    auto [out, status] = Cli("export no-such.mfc --format " + format.name + " -o /nonexistent-dir/x");
    EXPECT_EQ(out.find("--format wants"), std::string::npos) << out;
  }
  auto [out, status] = Cli("export no-such.mfc --format svg -o x");
  EXPECT_NE(out.find("--format wants " + ExportFormatNames(", ", " or ") + ", not 'svg'"), std::string::npos) << out;
}

}  // namespace
}  // namespace memframe::analysis
