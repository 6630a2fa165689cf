// Under Wine, in one Wine prefix (start-up is the slow part):
//   - the DXGI presents end frames: memframe_d3d11_frames.exe presents N
//     frames through a swap chain from D3D11CreateDeviceAndSwapChain
//     (Present) and N through one from IDXGIFactory2::CreateSwapChainForHwnd
//     (Present1), each with one FrameScratch block; Wine draws them with
//     SwapBuffers on a thread of its own, which must not count; its main
//     thread's description names the thread;
//   - --frame-source IDXGISwapChain::Present picks that present;
//   - `memframe.exe attach NAME.exe` loads the agent into the Windows demo
//     game started without memframe, and records it from there to its end.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "attach_detach.h"
#include "demo_truth.h"
#include "e2e_helpers.h"

namespace memframe::demo {
namespace {

using nlohmann::json;

constexpr int kFramesPerSwapChain = 15;
constexpr int kScratchBytes = 3000;  // tests/programs/d3d11_frames/main.cpp
constexpr int kTimeoutSeconds = 180;
// Long enough that the game still runs once attach has found it.
constexpr int kAttachedGameFrames = 1000;

class WindowsPresentAttach : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    scratch_ = std::make_unique<e2e::ScratchDirectory>("memframe-win-present-attach");
    setenv("WINEPREFIX", (scratch_->path() / "wine").c_str(), 0);  // ctest names windows.build's
    setenv("WINEDEBUG", "-all", 1);
  }
  static void TearDownTestSuite() { scratch_.reset(); }

  static std::string Capture(const char* name) { return (scratch_->path() / name).string(); }

  static json Report(const std::string& capture, std::vector<std::string> arguments) {
    std::vector<std::string> command = {MEMFRAME_CLI_PATH, "report", capture};
    command.insert(command.end(), arguments.begin(), arguments.end());
    command.push_back("--json");
    e2e::CommandResult result = e2e::RunCommand(command, kTimeoutSeconds);
    EXPECT_EQ(result.exit_code, 0) << e2e::ShellCommandLine(command);
    json parsed = e2e::ParseJsonOrDiscard(result.standard_output);
    return parsed.is_object() ? e2e::WithStacks(std::move(parsed)) : json::object();
  }

  // Records the Direct3D 11 program into `capture` with the recorder's
  // `options`; its command line when that failed, else "".
  static std::string RecordD3d11(const std::string& capture, std::vector<std::string> options) {
    std::vector<std::string> record = {MEMFRAME_CLI_PATH, "run", "--tcp", "-o", capture};
    record.insert(record.end(), options.begin(), options.end());
    const std::vector<std::string> program = {"--", "wine", MEMFRAME_WINDOWS_BIN "/memframe.exe", "run", "--",
                                              MEMFRAME_WINDOWS_BIN "/memframe_d3d11_frames.exe", "--frames",
                                              std::to_string(kFramesPerSwapChain)};
    record.insert(record.end(), program.begin(), program.end());
    return e2e::RunCommand(record, kTimeoutSeconds).exit_code == 0 ? "" : e2e::ShellCommandLine(record);
  }

  static inline std::unique_ptr<e2e::ScratchDirectory> scratch_;
};

TEST_F(WindowsPresentAttach, DxgiPresentsEndTheFrames) {
  const std::string capture = Capture("d3d11.mfc");
  const std::string failed = RecordD3d11(capture, {});
  ASSERT_EQ(failed, "");

  const json summary = Report(capture, {});
  EXPECT_EQ(summary.value("frames", -1), 2 * kFramesPerSwapChain);
  EXPECT_EQ(summary.value("frame_source", ""), "IDXGISwapChain::Present");
  // One block a frame, freed in it: every frame has exactly one.
  const std::vector<json> sites = e2e::SitesWithFunctionInStack(
      e2e::OneScopeRows(Report(capture, {"sites", "--all-frames"})), "FrameScratch");
  const e2e::SiteTotals scratch = e2e::SumSites(sites);
  EXPECT_EQ(scratch.allocations, 2u * kFramesPerSwapChain);
  EXPECT_EQ(scratch.bytes, 2u * kFramesPerSwapChain * kScratchBytes);
  const json frames = Report(capture, {"frames"}).value("frames", json::array());
  ASSERT_GE(frames.size(), 2u * kFramesPerSwapChain);
  // Its main thread's description is the thread's name (GetThreadDescription).
  bool named = false;
  for (const json& thread : Report(capture, {"threads"}).value("threads", json::array()))
    named = named || thread.value("name", "") == "d3d11 main";
  EXPECT_TRUE(named) << "no thread named \"d3d11 main\"";
}

// --frame-source takes a Windows present: the recorder's CLI passes it on,
// and every call of it ends a frame.
TEST_F(WindowsPresentAttach, FrameSourceTakesAWindowsPresent) {
  const std::string capture = Capture("d3d11_forced.mfc");
  const std::string failed = RecordD3d11(capture, {"--frame-source", "IDXGISwapChain::Present"});
  ASSERT_EQ(failed, "");
  const json summary = Report(capture, {});
  EXPECT_EQ(summary.value("frames", -1), 2 * kFramesPerSwapChain);
  EXPECT_EQ(summary.value("frame_source", ""), "IDXGISwapChain::Present");
}

using windows_test::Spawn;

TEST_F(WindowsPresentAttach, AttachRecordsARunningGameToItsEnd) {
  const std::string capture = Capture("attach.mfc");
  // A copy with a name of its own: the other Windows tests share the Wine
  // prefix, and may run a demo game of theirs at the same time.
  namespace fs = std::filesystem;
  const fs::path bin = MEMFRAME_WINDOWS_BIN, dir = scratch_->path() / "game";
  fs::create_directory(dir);
  fs::copy_file(MEMFRAME_DEMO_GAME_PATH, dir / "memframe_demo_attached.exe");
  for (const char* dll : {"libstdc++-6.dll", "libgcc_s_seh-1.dll", "libwinpthread-1.dll"})
    fs::copy_file(bin / dll, dir / dll);
  const pid_t game = Spawn({"wine", (dir / "memframe_demo_attached.exe").string(), "--frames",
                            std::to_string(kAttachedGameFrames), "--quiet"});
  ASSERT_GT(game, 0);
  const std::vector<std::string> record = {MEMFRAME_CLI_PATH, "run", "--tcp", "--force", "-o", capture, "--",
                                           "wine", MEMFRAME_WINDOWS_BIN "/memframe.exe", "attach",
                                           "memframe_demo_attached.exe"};
  // Until Wine has started the game, attach finds no process of that name.
  int status = -1;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (std::chrono::steady_clock::now() < deadline && waitpid(game, nullptr, WNOHANG) == 0) {
    status = e2e::RunCommand(record, kTimeoutSeconds).exit_code;
    if (status == 0) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  // Bounded: a game that an attach left hanging fails here, it does not
  // hang the suite (seen once under a full suite's load: an attach that
  // did not end in kTimeoutSeconds, and the game never ended after it).
  const int game_status = windows_test::WaitBounded(game, kTimeoutSeconds);
  if (game_status == -2) system("wine taskkill /f /im memframe_demo_attached.exe >/dev/null 2>&1");
  ASSERT_EQ(status, 0) << "attach never succeeded while the game ran: " << e2e::ShellCommandLine(record);
  ASSERT_NE(game_status, -2) << "the game did not end within " << kTimeoutSeconds << " s of the attach";

  const json summary = Report(capture, {});
  const json info = summary.value("capture", json::object());
  EXPECT_TRUE(info.value("attached", false));
  EXPECT_TRUE(info.value("complete", false));
  EXPECT_EQ(info.value("exit_status", -1), 0);
  EXPECT_EQ(summary.value("frame_source", ""), "SwapBuffers");
  EXPECT_GE(summary.value("frames", 0), 10);
  EXPECT_LE(summary.value("frames", 1 << 30), TotalFrames(kAttachedGameFrames) + 1);
  // The gameplay frames recorded have the game's figures.
  const std::vector<json> labels = e2e::SitesWithFunctionInStack(
      e2e::OneScopeRows(Report(capture, {"sites", "--all-frames"})), kSpawnDamageLabelFunction);
  ASSERT_EQ(labels.size(), 1u);
  EXPECT_EQ(labels[0].value("allocs_per_frame_max", -1), kHitsPerFrame);
  EXPECT_EQ(labels[0].value("size_min", -1), static_cast<int>(kDamageLabelBytes));
  EXPECT_EQ(labels[0].value("size_max", -1), static_cast<int>(kDamageLabelBytes));
}

// memframe.exe detach ends an attach's recording while the game runs on: the
// waiting attach (and with it the recorder) ends with status 0, the capture
// is complete and says the game ran on, and a second detach is refused.
TEST_F(WindowsPresentAttach, DetachEndsTheRecordingAndTheGameRunsOn) {
  const std::string capture = Capture("detach.mfc");
  namespace fs = std::filesystem;
  const fs::path bin = MEMFRAME_WINDOWS_BIN, dir = scratch_->path() / "detached";
  fs::create_directory(dir);
  const char* kName = "memframe_demo_detached.exe";
  fs::copy_file(MEMFRAME_DEMO_GAME_PATH, dir / kName);
  for (const char* dll : {"libstdc++-6.dll", "libgcc_s_seh-1.dll", "libwinpthread-1.dll"})
    fs::copy_file(bin / dll, dir / dll);
  // Long enough to outlive the attach and the detach by far.
  const pid_t game = Spawn({"wine", (dir / kName).string(), "--frames", "100000", "--quiet"});
  ASSERT_GT(game, 0);
  const std::vector<std::string> detach = {"wine", MEMFRAME_WINDOWS_INJECTOR_PATH, "detach", kName};
  const std::vector<std::string> record = {MEMFRAME_CLI_PATH, "run", "--tcp", "--force", "-o", capture, "--",
                                           "wine", MEMFRAME_WINDOWS_INJECTOR_PATH, "attach", kName};
  const windows_test::AttachedThenDetached attach = windows_test::AttachThenDetach(record, detach, 120, kTimeoutSeconds);
  const int detached = attach.detached;
  ASSERT_GT(attach.recorder, 0);
  // The recorder ends once the detach has ended the recording; bounded, so
  // that a detach that never took effect fails the test instead of hanging it.
  const int recorder_status = windows_test::WaitBounded(attach.recorder, kTimeoutSeconds);
  // The game outlived the recording; a second detach finds none to end.
  const bool game_ran_on = waitpid(game, nullptr, WNOHANG) == 0;
  const int second_detach = detached == 0 ? e2e::RunCommand(detach, kTimeoutSeconds).exit_code : -1;
  kill(game, SIGKILL);
  waitpid(game, nullptr, 0);
  system(("wine taskkill /f /im " + std::string(kName) + " >/dev/null 2>&1").c_str());
  ASSERT_EQ(detached, 0) << "memframe.exe detach never succeeded";
  EXPECT_TRUE(game_ran_on);
  EXPECT_EQ(second_detach, 125);
  EXPECT_TRUE(WIFEXITED(recorder_status) && WEXITSTATUS(recorder_status) == 0) << recorder_status;
  const json summary = Report(capture, {});
  const json info = summary.value("capture", json::object());
  EXPECT_TRUE(info.value("attached", false));
  EXPECT_TRUE(info.value("complete", false));
  EXPECT_EQ(info.value("ended", ""), "ran on after memframe detached");
  EXPECT_GE(summary.value("frames", 0), 1);
}

}  // namespace
}  // namespace memframe::demo
