// Who allocated, end to end: the driver game (driver_game_truth.h) recorded
// by `memframe run`, then its module classes, per-class figures and site
// names checked exactly in the reports' JSON and the viewer's view data.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "driver_game_truth.h"
#include "e2e_helpers.h"

namespace memframe {
namespace {

using nlohmann::json;
using namespace driver_game;

class DriverGameTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = new e2e::ScratchDirectory("memframe-driver-game");
    capture_ = (scratch_->path() / "driver.mfc").string();
    std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "run", "-o", capture_, "--", MEMFRAME_DRIVER_GAME_PATH};
    e2e::CommandResult run = e2e::RunCommand(argv, 120);
    ASSERT_EQ(run.exit_code, 0) << e2e::ShellCommandLine(argv);
  }
  static void TearDownTestSuite() {
    delete scratch_;
    scratch_ = nullptr;
  }

  static json Report(std::vector<std::string> args) {
    std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "report", capture_};
    argv.insert(argv.end(), args.begin(), args.end());
    argv.push_back("--json");
    e2e::CommandResult r = e2e::RunCommand(argv, 120);
    EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    json j = e2e::ParseJsonOrDiscard(r.standard_output);
    EXPECT_FALSE(j.is_discarded()) << r.standard_output;
    return j;
  }

  static json ViewData(std::vector<std::string> args) {
    std::vector<std::string> argv = {MEMFRAME_VIEWER_PATH, capture_};
    argv.insert(argv.end(), args.begin(), args.end());
    e2e::CommandResult r = e2e::RunCommand(argv, 120);
    EXPECT_EQ(r.exit_code, 0) << e2e::ShellCommandLine(argv);
    json j = e2e::ParseJsonOrDiscard(r.standard_output);
    EXPECT_FALSE(j.is_discarded()) << r.standard_output;
    return j;
  }

  static const json* Named(const json& sites, const std::string& name) {
    for (const json& s : sites) {
      if (s.value("name", "") == name) return &s;
    }
    return nullptr;
  }

  static inline e2e::ScratchDirectory* scratch_ = nullptr;
  static inline std::string capture_;
};

TEST_F(DriverGameTest, SummarySaysEachClassShare) {
  json j = Report({});
  std::map<std::string, json> by_class;
  for (const json& c : j["module_classes"]) by_class[c["module_class"]] = c;
  ASSERT_EQ(by_class.size(), 4u);
  // The driver allocates only inside the present; the game only in UpdateGame.
  EXPECT_EQ(by_class["driver"]["allocations"], kFrames * kDriverBlocksPerFrame);
  EXPECT_EQ(by_class["driver"]["bytes"], kFrames * kDriverBytesPerFrame);
  EXPECT_EQ(by_class["game"]["allocations"], kFrames * kGameBlocks);
  EXPECT_EQ(by_class["game"]["bytes"], kFrames * kGameBlocks * kGameBlockBytes);
}

TEST_F(DriverGameTest, HiddenSitesNameBothSides) {
  json j = Report({"hidden"});
  const json* driver = Named(j["sites"], kDriverSiteName);
  ASSERT_NE(driver, nullptr) << j["sites"].dump(1);
  EXPECT_EQ((*driver)["module"], kDriverModule);
  EXPECT_EQ((*driver)["module_class"], "driver");
  EXPECT_EQ((*driver)["location"], std::string(kGameFile) + ":" + std::to_string(kPresentCallLine));
  EXPECT_EQ((*driver)["allocations"], kFrames * kDriverBlocksPerFrame);
  EXPECT_EQ((*driver)["allocs_per_frame_median"], kDriverBlocksPerFrame);
  EXPECT_EQ((*driver)["bytes_per_frame_median"], kDriverBytesPerFrame);
  EXPECT_EQ((*driver)["frames_with_allocations"], kFrames);
  // RecordCommands and UploadStaging: two driver paths (more stacks when the
  // compiler unrolls a loop), one site.
  EXPECT_GE((*driver)["stack_ids"].size(), 2u);
  std::string functions;
  for (const json& f : (*driver)["stack"]) functions += f.value("function", "") + ";";
  EXPECT_NE(functions.find("FakePresent;PresentFrame(int);main;"), std::string::npos) << functions;
  const json* game = Named(j["sites"], kGameSiteName);
  ASSERT_NE(game, nullptr) << j["sites"].dump(1);
  EXPECT_EQ((*game)["module"], "memframe_driver_game");
  EXPECT_EQ((*game)["module_class"], "game");
  EXPECT_EQ((*game)["location"], std::string(kGameFile) + ":" + std::to_string(kUpdateAllocLine));
  EXPECT_EQ((*game)["allocs_per_frame_median"], kGameBlocks);
  EXPECT_EQ((*game)["bytes_per_frame_median"], kGameBlocks * kGameBlockBytes);
  // memframe's own frames are in no stack shown.
  for (const json& s : j["sites"]) {
    for (const json& f : s["stack"])
      EXPECT_EQ(f["module"].get<std::string>().find("libmemframe_agent"), std::string::npos) << s["name"];
  }
}

TEST_F(DriverGameTest, OnlyAndHideKeepClasses) {
  json hidden = Report({"hidden", "--hide", "driver"});
  EXPECT_EQ(hidden["module_classes_shown"], json({"game", "engine", "system"}));
  EXPECT_EQ(Named(hidden["sites"], kDriverSiteName), nullptr);
  EXPECT_NE(Named(hidden["sites"], kGameSiteName), nullptr);
  json only = Report({"sites", "--only", "driver"});
  ASSERT_FALSE(only["sites"].empty());
  uint64_t allocations = 0;
  for (const json& s : only["sites"]) {
    EXPECT_EQ(s["module_class"], "driver") << s["name"];
    allocations += s["allocations"].get<uint64_t>();
  }
  EXPECT_EQ(allocations, kFrames * kDriverBlocksPerFrame);
}

TEST_F(DriverGameTest, UserRuleComesFirst) {
  json j = Report({"hidden", "--module-class", "libfake_dri*=engine", "--only", "engine"});
  const json* driver = Named(j["sites"], kDriverSiteName);
  ASSERT_NE(driver, nullptr) << j["sites"].dump(1);
  EXPECT_EQ((*driver)["module_class"], "engine");
  json summary = Report({"--module-class", "libfake_dri*=engine"});
  for (const json& c : summary["module_classes"]) {
    if (c["module_class"] == "engine") EXPECT_EQ(c["allocations"], kFrames * kDriverBlocksPerFrame);
    if (c["module_class"] == "driver") EXPECT_EQ(c["allocations"], 0);
  }
}

TEST_F(DriverGameTest, ViewerShowsTheSameClasses) {
  json data = ViewData({"--dump-view-data", "hidden"});
  const json* driver = Named(data["rows"], kDriverSiteName);
  ASSERT_NE(driver, nullptr) << data["rows"].dump(1);
  EXPECT_EQ((*driver)["module_class"], "driver");
  EXPECT_EQ((*driver)["module"], kDriverModule);
  EXPECT_EQ((*driver)["allocs_per_frame_median"], kDriverBlocksPerFrame);
  const json* game = Named(data["rows"], kGameSiteName);
  ASSERT_NE(game, nullptr);
  EXPECT_EQ((*game)["module_class"], "game");
  json hidden = ViewData({"--dump-view-data", "hidden", "--hide", "driver"});
  EXPECT_EQ(Named(hidden["rows"], kDriverSiteName), nullptr);
  EXPECT_NE(Named(hidden["rows"], kGameSiteName), nullptr);
  json rule = ViewData({"--dump-view-data", "histogram", "--module-class", "libfake_dri*=system", "--only", "system"});
  bool saw_driver_site = false;
  for (const json& s : rule["sites"]) {
    EXPECT_EQ(s["module_class"], "system") << s["name"];
    saw_driver_site = saw_driver_site || s["module"] == kDriverModule;
  }
  EXPECT_TRUE(saw_driver_site);
}

TEST_F(DriverGameTest, TextTablesShowClassAndModule) {
  std::vector<std::string> argv = {MEMFRAME_CLI_PATH, "report", capture_, "hidden"};
  e2e::CommandResult r = e2e::RunCommand(argv, 120);
  ASSERT_EQ(r.exit_code, 0);
  EXPECT_NE(r.standard_output.find("class   module"), std::string::npos) << r.standard_output;
  EXPECT_NE(r.standard_output.find(std::string("driver  libfake_dri.so        ") + kDriverSiteName + "  " + kGameFile +
                                   ":" + std::to_string(kPresentCallLine)),
            std::string::npos)
      << r.standard_output;
}

}  // namespace
}  // namespace memframe
