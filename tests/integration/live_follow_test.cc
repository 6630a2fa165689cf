// Following a run live: record memframe_demo_game with
// `memframe run`, follow it through the live socket it prints (with the
// viewer's own client, analysis::LiveFollower), place snapshot markers while
// it plays, and check the finished capture against demo_truth.h. Also: a
// viewer that never reads and one that sends garbage neither stall the game
// nor cost the capture anything.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "demo_truth.h"
#include "e2e_helpers.h"
#include "memframe/analysis/capture_loader.h"
#include "memframe/analysis/live_follow.h"

namespace memframe::demo {
namespace {

using nlohmann::json;
using Clock = std::chrono::steady_clock;

constexpr int kReportTimeoutSeconds = 120;
constexpr auto kRunLimit = std::chrono::seconds(300);

extern "C" char** environ;

// `memframe run` in the background, its stderr in a file (where it says
// where the live socket is). The game waits before each gameplay frame of
// `waits` until Resume().
class Recording {
 public:
  Recording(const std::filesystem::path& dir, int gameplay_frames, std::vector<std::string> env = {},
            const std::vector<int>& waits = {})
      : capture_((dir / "demo.mfc").string()), log_((dir / "memframe.log").string()) {
    std::vector<std::string> words = {MEMFRAME_CLI_PATH, "run", "--no-summary", "-o", capture_, "--",
                                      MEMFRAME_DEMO_GAME_PATH, "--frames", std::to_string(gameplay_frames),
                                      "--quiet"};
    for (int frame : waits) {
      words.push_back("--wait-before-gameplay-frame");
      words.push_back(std::to_string(frame));
    }
    int game_input[2] = {-1, -1};
    if (!waits.empty() && pipe2(game_input, O_CLOEXEC) != 0) return;
    std::vector<char*> argv;
    for (auto& w : words) argv.push_back(w.data());
    argv.push_back(nullptr);
    for (char** e = environ; *e; ++e) env.emplace_back(*e);
    std::vector<char*> envp;
    for (auto& e : env) envp.push_back(e.data());
    envp.push_back(nullptr);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_addopen(&actions, 2, log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (game_input[0] >= 0) posix_spawn_file_actions_adddup2(&actions, game_input[0], 0);
    started_ = posix_spawn(&pid_, argv[0], &actions, nullptr, argv.data(), envp.data()) == 0;
    posix_spawn_file_actions_destroy(&actions);
    if (game_input[0] >= 0) close(game_input[0]);
    resume_fd_ = game_input[1];
    start_time_ = Clock::now();
  }
  ~Recording() {
    if (resume_fd_ >= 0) close(resume_fd_);
    if (pid_ > 0 && !reaped_) {
      kill(pid_, SIGKILL);
      waitpid(pid_, nullptr, 0);
    }
  }

  bool started() const { return started_; }
  // Lets the game go on from the frame it waits before.
  bool Resume() { return resume_fd_ >= 0 && write(resume_fd_, "\n", 1) == 1; }
  // Polls memframe's log for `text` (at most 60 s).
  bool WaitForLog(const std::string& text) {
    const auto deadline = Clock::now() + std::chrono::seconds(60);
    while (Log().find(text) == std::string::npos) {
      if (Clock::now() > deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
  }
  const std::string& capture() const { return capture_; }
  std::string Log() const {
    std::ifstream in(log_);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  }
  // The socket from "memframe: live view: memframe-viewer --follow PATH".
  std::string WaitForSocket() {
    const std::string marker = "memframe-viewer --follow ";
    while (Clock::now() - start_time_ < std::chrono::seconds(60)) {
      std::string log = Log();
      size_t at = log.find(marker);
      if (at != std::string::npos) {
        size_t end = log.find('\n', at);
        if (end != std::string::npos) return log.substr(at + marker.size(), end - at - marker.size());
      }
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return "";
  }
  bool Running() {
    int status = 0;
    if (reaped_) return false;
    if (waitpid(pid_, &status, WNOHANG) == pid_) {
      reaped_ = true;
      exit_code_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      return false;
    }
    return true;
  }
  // The exit status, or -1 when it ran past kRunLimit (then it is killed).
  int Wait() {
    while (Running()) {
      if (Clock::now() - start_time_ > kRunLimit) return -1;
      std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return exit_code_;
  }

 private:
  std::string capture_, log_;
  pid_t pid_ = -1;
  int resume_fd_ = -1;
  bool started_ = false, reaped_ = false;
  int exit_code_ = -1;
  Clock::time_point start_time_;
};

json Report(const std::string& capture, const std::vector<std::string>& arguments) {
  std::vector<std::string> command = {MEMFRAME_CLI_PATH, "report", capture};
  command.insert(command.end(), arguments.begin(), arguments.end());
  command.push_back("--json");
  const e2e::CommandResult result = e2e::RunCommand(command, kReportTimeoutSeconds);
  EXPECT_EQ(result.exit_code, 0) << e2e::ShellCommandLine(command);
  json parsed = e2e::ParseJsonOrDiscard(result.standard_output);
  EXPECT_FALSE(parsed.is_discarded()) << result.standard_output;
  return e2e::WithStacks(std::move(parsed));
}

// The last frame the model has events of; 0 while it has none.
uint64_t LastFrame(const analysis::Capture& capture) {
  if (!capture.has_main || capture.main.events.empty()) return 0;
  return capture.main.events.back().frame;
}

int Connect(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_un address{};
  address.sun_family = AF_UNIX;
  std::strncpy(address.sun_path, path.c_str(), sizeof(address.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// The model a follower builds once its last frame is at least `frame` (or
// the last one it built within 60 s).
analysis::Capture BuildUpTo(analysis::LiveFollower& follower, uint64_t frame) {
  analysis::Capture capture;
  std::string error;
  const auto deadline = Clock::now() + std::chrono::seconds(60);
  do {
    capture = analysis::Capture();
    EXPECT_TRUE(follower.Build(&capture, &error)) << error;
    if (LastFrame(capture) >= frame) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  } while (Clock::now() < deadline);
  return capture;
}

TEST(LiveFollow, FollowsTheDemoGameAndMarksSnapshots) {
  // The game waits before two gameplay frames of steady play (the label
  // pool full), so that each mark lands there whatever the machine's speed.
  constexpr int kGameplayFrames = 1000;
  constexpr int kFirstWait = kLabelLifetimeFrames + 10, kSecondWait = kFirstWait + 200;
  e2e::ScratchDirectory scratch("memframe-live-follow");
  Recording run(scratch.path(), kGameplayFrames, {}, {kFirstWait, kSecondWait});
  ASSERT_TRUE(run.started());
  const std::string socket = run.WaitForSocket();
  ASSERT_FALSE(socket.empty()) << run.Log();
  // The socket lives in the run's private directory.
  struct stat dir {};
  ASSERT_EQ(stat(socket.substr(0, socket.rfind('/')).c_str(), &dir), 0);
  EXPECT_EQ(dir.st_mode & 0777, 0700u);

  std::string error;
  auto follower = analysis::LiveFollower::Start(socket, &error);
  ASSERT_TRUE(follower) << error;
  EXPECT_EQ(follower->capture_path(), std::filesystem::absolute(run.capture()).string());

  // Frames grow while the game plays, up to the first wait.
  const uint64_t steady = FirstGameplayFrame() + kLabelLifetimeFrames + 5;
  const uint64_t last_seen = LastFrame(BuildUpTo(*follower, steady));
  ASSERT_GE(last_seen, steady) << "the follower did not see gameplay; log:\n" << run.Log();
  ASSERT_TRUE(follower->RequestSnapshot("", &error)) << error;
  ASSERT_TRUE(run.WaitForLog("marked 'snapshot 1'")) << run.Log();
  ASSERT_TRUE(run.Resume());
  // A viewer connecting late sees the run so far too, and the frames since.
  auto late = analysis::LiveFollower::Start(socket, &error);
  ASSERT_TRUE(late) << error;
  const uint64_t second_wait = FirstGameplayFrame() + kSecondWait - 1;
  const analysis::Capture middle = BuildUpTo(*late, second_wait);
  EXPECT_GE(LastFrame(middle), second_wait) << "frames did not grow while the game ran";
  EXPECT_GT(LastFrame(middle), last_seen);
  ASSERT_TRUE(late->RequestSnapshot("", &error)) << error;
  ASSERT_TRUE(run.WaitForLog("marked 'snapshot 2'")) << run.Log();
  ASSERT_TRUE(run.Resume());

  ASSERT_EQ(run.Wait(), 0) << run.Log();
  const std::string log = run.Log();
  EXPECT_NE(log.find("marked 'snapshot 1'"), std::string::npos) << log;
  EXPECT_NE(log.find("marked 'snapshot 2'"), std::string::npos) << log;

  // The follower's last model is the finished file's model.
  auto deadline = Clock::now() + std::chrono::seconds(30);
  while (!follower->status().ended && Clock::now() < deadline) std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(follower->status().ended);
  EXPECT_EQ(follower->status().error, "");
  analysis::Capture followed, loaded;
  ASSERT_TRUE(follower->Build(&followed, &error)) << error;
  ASSERT_TRUE(analysis::LoadCapture(run.capture(), &loaded, &error)) << error;
  EXPECT_EQ(followed.main.events.size(), loaded.main.events.size());
  EXPECT_TRUE(followed.recorder.finished);
  ASSERT_EQ(loaded.recorder.snapshots.size(), 2u);
  EXPECT_EQ(loaded.recorder.snapshots[0].name, "snapshot 1");
  EXPECT_EQ(loaded.recorder.snapshots[1].name, "snapshot 2");

  // The marks are named markers: the diff between them is steady gameplay
  // (the label pool and the level unchanged, give or take the labels of the
  // one frame each mark cuts through).
  const json diff = Report(run.capture(), {"diff", "snapshot 1", "snapshot 2"});
  ASSERT_EQ(diff["a"].value("kind", ""), "marker") << diff.dump(2);
  const uint64_t frame_a = diff["a"].value("frame", 0u), frame_b = diff["b"].value("frame", 0u);
  EXPECT_GE(frame_a, steady);
  EXPECT_LE(frame_a, frame_b);
  EXPECT_LE(frame_b, static_cast<uint64_t>(LastGameplayFrame(kGameplayFrames)));
  const json sites = diff.value("sites", json::array());
  EXPECT_TRUE(e2e::SitesWithFunctionInStack(sites, kLoadLevelFunction).empty()) << diff.dump(2);
  for (const json& site : e2e::SitesWithFunctionInStack(sites, kSpawnDamageLabelFunction))
    EXPECT_LE(std::abs(site.value("delta_blocks", 0)), kHitsPerFrame) << site.dump(2);
  // What a snapshot holds: the level, loaded before gameplay.
  const json from_start = Report(run.capture(), {"diff", "start", "snapshot 1"});
  uint64_t level_blocks = 0;
  for (const json& site : e2e::SitesWithFunctionInStack(from_start.value("sites", json::array()), kLoadLevelFunction))
    level_blocks += site.value("blocks_b", 0u);
  EXPECT_EQ(level_blocks, static_cast<uint64_t>(kLevelBlocks)) << from_start.dump(2);
  uint64_t labels = 0;
  for (const json& site :
       e2e::SitesWithFunctionInStack(from_start.value("sites", json::array()), kSpawnDamageLabelFunction))
    labels += site.value("blocks_b", 0u);
  EXPECT_GE(labels, static_cast<uint64_t>(kHitsPerFrame * (kLabelLifetimeFrames - 1)));
  EXPECT_LE(labels, static_cast<uint64_t>(kHitsPerFrame * (kLabelLifetimeFrames + 1)));

  // And the capture is whole.
  EXPECT_EQ(Report(run.capture(), {}).value("frames", -1), TotalFrames(kGameplayFrames));
}

TEST(LiveFollow, StuckAndGarbageViewersNeitherStallTheGameNorLoseData) {
  constexpr int kGameplayFrames = 6000;
  e2e::ScratchDirectory scratch("memframe-live-stuck");
  // A small queue so that the stuck viewer is dropped during this short run.
  Recording run(scratch.path(), kGameplayFrames, {"MEMFRAME_LIVE_QUEUE_BYTES=1048576"});
  ASSERT_TRUE(run.started());
  const std::string socket = run.WaitForSocket();
  ASSERT_FALSE(socket.empty()) << run.Log();

  int stuck = Connect(socket);  // never reads
  ASSERT_GE(stuck, 0);
  int garbage = Connect(socket);
  ASSERT_GE(garbage, 0);
  const char junk[] = "\x05hello, this is not a memframe request at all \xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff";
  ASSERT_GT(write(garbage, junk, sizeof junk), 0);
  // The recorder hangs up on it: reads end (after the LiveStart record).
  char buffer[4096];
  ssize_t n = 0;
  auto deadline = Clock::now() + std::chrono::seconds(30);
  do {
    n = read(garbage, buffer, sizeof buffer);
  } while (n > 0 && Clock::now() < deadline);
  EXPECT_LE(n, 0) << "the recorder kept a viewer that sent garbage";
  close(garbage);
  // An oversized request is refused too.
  int big = Connect(socket);
  ASSERT_GE(big, 0);
  std::string oversized(8, '\xff');
  oversized += std::string(1 << 16, 'x');
  (void)!write(big, oversized.data(), oversized.size());

  ASSERT_EQ(run.Wait(), 0) << "the game did not finish with a stuck viewer attached; log:\n" << run.Log();
  close(stuck);
  close(big);
  const std::string log = run.Log();
  EXPECT_NE(log.find("not a memframe request"), std::string::npos) << log;
  EXPECT_NE(log.find("cannot keep up"), std::string::npos) << log;
  // Nothing is lost.
  const json summary = Report(run.capture(), {});
  EXPECT_EQ(summary.value("frames", -1), TotalFrames(kGameplayFrames));
  const json leaks = Report(run.capture(), {"leaks"});
  EXPECT_FALSE(e2e::SitesWithFunctionInStack(leaks.value("sites", json::array()), kLeakingFunction).empty())
      << leaks.dump(2).substr(0, 2000);
}

TEST(LiveFollow, RefusesWhatIsNotALiveSocket) {
  std::string error;
  EXPECT_FALSE(analysis::LiveFollower::Start("/nonexistent/live.sock", &error));
  EXPECT_NE(error.find("cannot connect"), std::string::npos) << error;
}

}  // namespace
}  // namespace memframe::demo
