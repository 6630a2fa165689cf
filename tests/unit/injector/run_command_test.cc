#include "run_command.h"

#include "cli_common.h"

#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <map>
#include <fstream>
#include <sstream>

#include "fake_agent_client.h"
#include "memframe_process.h"
#include "memframe/capture_file.h"
#include "memframe.pb.h"

namespace memframe::injector {
namespace {

// ---- argument parsing ----------------------------------------------------------

TEST(ParseRunArguments, ReadsOptionsThenTheCommandUntouched) {
  RunOptions options;
  std::string error;
  ASSERT_EQ(ParseRunArguments({"-o", "x.mfc", "--stack-depth", "12", "--no-stacks", "--no-summary", "--agent", "a.so",
                               "--", "game", "-o", "--no-summary"},
                              &options, &error),
            RunParse::kRun)
      << error;
  EXPECT_EQ(options.output, "x.mfc");
  EXPECT_EQ(options.agent_settings.stack_depth, 12);
  EXPECT_FALSE(options.agent_settings.stacks);
  EXPECT_FALSE(options.summary);
  EXPECT_EQ(options.agent, "a.so");
  EXPECT_EQ(options.command, (std::vector<std::string>{"game", "-o", "--no-summary"}));
}

TEST(ParseRunArguments, ValuesAfterAnEqualsSign) {
  RunOptions options;
  std::string error;
  ASSERT_EQ(ParseRunArguments({"--output=x.mfc", "--stack-depth=8", "--frame-source=slices", "--time-slice=0", "game",
                               "--stack-depth=2"},
                              &options, &error),
            RunParse::kRun)
      << error;
  EXPECT_EQ(options.output, "x.mfc");
  EXPECT_EQ(options.agent_settings.stack_depth, 8);
  EXPECT_EQ(options.frame_source, "slices");
  EXPECT_EQ(options.agent_settings.time_slice_ms, 0);
  EXPECT_EQ(options.command, (std::vector<std::string>{"game", "--stack-depth=2"}));
}

TEST(ParseRunArguments, CommandStartsAtTheFirstNonOption) {
  RunOptions options;
  std::string error;
  ASSERT_EQ(ParseRunArguments({"--output", "y.mfc", "ls", "-l"}, &options, &error), RunParse::kRun);
  EXPECT_EQ(options.command, (std::vector<std::string>{"ls", "-l"}));
  EXPECT_TRUE(options.summary);
  EXPECT_EQ(options.agent_settings.stack_depth, 32);  // the agent's default
}

TEST(ParseRunArguments, AgentBehaviourOptions) {
  RunOptions options;
  std::string error;
  ASSERT_EQ(ParseRunArguments({"--time-slice", "33", "--drop", "--follow-fork", "--no-follow-exec", "--free-stacks",
                               "--frame-source", "glXSwapBuffers", "game"},
                              &options,
                              &error),
            RunParse::kRun)
      << error;
  EXPECT_EQ(options.agent_settings.time_slice_ms, 33);
  EXPECT_TRUE(options.agent_settings.drop_when_full);
  EXPECT_TRUE(options.agent_settings.follow_fork);
  EXPECT_FALSE(options.agent_settings.follow_exec);
  EXPECT_TRUE(options.agent_settings.free_stacks);
  EXPECT_EQ(options.frame_source, "glXSwapBuffers");
  RunOptions defaults;
  ASSERT_EQ(ParseRunArguments({"game"}, &defaults, &error), RunParse::kRun);
  EXPECT_EQ(defaults.agent_settings.time_slice_ms, 16);
  EXPECT_FALSE(defaults.agent_settings.drop_when_full);
  EXPECT_FALSE(defaults.agent_settings.follow_fork);
  EXPECT_TRUE(defaults.agent_settings.follow_exec);
}

// ---- agent settings ----------------------------------------------------------

bool SameSetting(const char* a, const char* b) { return std::string(a ? a : "") == std::string(b ? b : ""); }
template <typename T>
bool SameSetting(T a, T b) {
  return a == b;
}

// What the agent reads back (its parser, memframe/agent_settings.h) from
// what `memframe run` or `memframe attach` writes for `options`.
// The text settings point into `entries`, which must outlive them.
wire::AgentSettings RoundTrip(const RunOptions& options, wire::Session session,
                              std::vector<std::pair<std::string, std::string>>* entries_out) {
  const auto& entries = *entries_out = AgentSettingEntries(options, "/tmp/x/agent.sock", session);
  return wire::ParseAgentSettings([&](const char* name) -> const char* {
    for (const auto& [key, value] : entries)
      if (key == name) return value.c_str();
    return nullptr;
  });
}

// Every setting has an option that changes it, and the agent reads back
// what run's environment and attach's file say: a setting added to the
// table but not to the options, the writer or the parser fails here.
TEST(AgentSettings, EverySettingRoundTripsThroughRunAndAttach) {
  RunOptions options;
  std::string error;
  ASSERT_EQ(ParseRunArguments({"--stack-depth", "7", "--no-stacks", "--time-slice", "0", "--drop", "--follow-fork",
                               "--no-follow-exec", "--free-stacks", "--no-gpu", "--frame-source", "SDL_Flip", "game"},
                              &options, &error),
            RunParse::kRun)
      << error;
  options.agent_settings.debug = true;  // MEMFRAME_DEBUG=1, not an option
  wire::AgentSettings expected = options.agent_settings;
  expected.socket_path = "/tmp/x/agent.sock";
  expected.frame_source = "SDL_Flip";
  const wire::AgentSettings defaults;
  std::vector<std::pair<std::string, std::string>> environment, attach_file;
  const wire::AgentSettings launched = RoundTrip(options, wire::kLaunchSession, &environment);
  const wire::AgentSettings attached = RoundTrip(options, wire::kAttachSession, &attach_file);
#define MEMFRAME_X(type, field, name, default_value, min, max, scope)                                 \
  EXPECT_FALSE(SameSetting(expected.field, defaults.field)) << #field " has no option that sets it"; \
  EXPECT_TRUE(SameSetting(launched.field, expected.field)) << #field;                                 \
  EXPECT_TRUE(SameSetting(attached.field, wire::scope == wire::kLaunchOnly ? defaults.field : expected.field)) << #field;
  MEMFRAME_AGENT_SETTINGS(MEMFRAME_X)
#undef MEMFRAME_X
  // An attach leaves out exactly the two follow settings.
  EXPECT_EQ(AgentSettingEntries(options, "s", wire::kLaunchSession).size(),
            AgentSettingEntries(options, "s", wire::kAttachSession).size() + 2);
  // Defaults are not written at all.
  EXPECT_TRUE(AgentSettingEntries(RunOptions{}, "", wire::kLaunchSession).empty());
}

// A value the agent cannot read leaves the default (no atoi: "12x" is not 12).
TEST(AgentSettings, TheAgentKeepsTheDefaultForAValueItCannotRead) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {wire::kEnvStackDepth, "12x"}, {wire::kEnvTimeSliceMs, "-5"}, {wire::kEnvStacks, "no"}, {wire::kEnvGpu, ""}};
  for (const auto& setting : bad) {
    const std::string& name = setting.first;
    const std::string& value = setting.second;
    const wire::AgentSettings read = wire::ParseAgentSettings(
        [&](const char* wanted) -> const char* { return name == wanted ? value.c_str() : nullptr; });
    EXPECT_EQ(read.stack_depth, 32) << name << "=" << value;
    EXPECT_EQ(read.time_slice_ms, 16) << name << "=" << value;
    EXPECT_TRUE(read.stacks) << name << "=" << value;
    EXPECT_TRUE(read.gpu) << name << "=" << value;
  }
  const wire::AgentSettings deep = wire::ParseAgentSettings(
      [](const char* wanted) -> const char* { return std::string(wanted) == wire::kEnvStackDepth ? "65" : nullptr; });
  EXPECT_EQ(deep.stack_depth, 32);  // past kMaxStackDepth
}

TEST(ParseRunArguments, ExplainsBadUsage) {
  auto error_of = [](std::vector<std::string> args) {
    RunOptions options;
    std::string error;
    EXPECT_EQ(ParseRunArguments(args, &options, &error), RunParse::kError);
    return error;
  };
  EXPECT_EQ(error_of({}), "no program to run");
  EXPECT_EQ(error_of({"--"}), "no program to run");
  EXPECT_EQ(error_of({"-o"}), "--output needs a value");
  EXPECT_EQ(error_of({"--frobnicate=1", "ls"}), "unknown option '--frobnicate'");
  EXPECT_EQ(error_of({"--frobnicate", "--", "ls"}), "unknown option '--frobnicate'");
  EXPECT_EQ(error_of({"--stack-depth", "0", "ls"}), "--stack-depth wants a number from 1 to 64, not '0'");
  EXPECT_EQ(error_of({"--stack-depth", "8x", "ls"}), "--stack-depth wants a number from 1 to 64, not '8x'");
  EXPECT_EQ(error_of({"--time-slice", "-1", "ls"}), "--time-slice wants milliseconds from 0 to 60000, not '-1'");
  EXPECT_EQ(error_of({"--frame-source", "bogus", "ls"}),
            "--frame-source wants auto, slices or one of the presents glfwSwapBuffers, glXSwapBuffers, "
            "eglSwapBuffers, SDL_GL_SwapWindow, SDL_GL_SwapBuffers, SDL_RenderPresent, SDL_UpdateWindowSurface, "
            "SDL_Flip, SDL_UpdateRect, SDL_UpdateRects, vkQueuePresentKHR, or of a Windows game (wine "
            "memframe.exe run) SwapBuffers, wglSwapBuffers, wglSwapLayerBuffers, vkQueuePresentKHR, "
            "IDXGISwapChain::Present, not 'bogus'");
  RunOptions options;
  std::string error;
  EXPECT_EQ(ParseRunArguments({"--help"}, &options, &error), RunParse::kHelp);
}

// ---- `memframe run` end to end, with the fake agent ------------------------------

class MemframeRun : public ::testing::Test {
 protected:
  // Runs the memframe binary with TMPDIR in our temporary directory, so the
  // test can see that the private socket directory is removed.
  // `stdout_path` other than "": memframe's stdout goes there (/dev/full).
  // `file_size_limit` > 0: files memframe writes may not grow past it (a full
  // disk without a mount: writes fail with EFBIG).
  Outcome Memframe(std::vector<std::string> args, const std::string& stdout_path = "", rlim_t file_size_limit = 0) {
    return RunMemframe(args, dir_, tmp_.path(), stdout_path, file_size_limit);
  }

  std::vector<std::string> Run(std::vector<std::string> command) {
    std::vector<std::string> args = {"run", "--no-summary", "--agent", MEMFRAME_TEST_FAKE_AGENT, "-o", capture(), "--"};
    args.insert(args.end(), command.begin(), command.end());
    return args;
  }
  std::vector<std::string> RunShell(const std::string& shell_command) { return Run({"/bin/sh", "-c", shell_command}); }

  std::vector<wire::CaptureRecord> ReadCapture() {
    std::string error;
    auto reader = wire::CaptureReader::Open(capture(), &error);
    EXPECT_TRUE(reader) << error;
    std::vector<wire::CaptureRecord> records;
    wire::CaptureRecord record;
    while (reader && reader->Next(&record)) records.push_back(record);
    if (reader) {
      EXPECT_EQ(reader->error(), "");
    }
    return records;
  }

  static wire::Packet Parse(const wire::CaptureRecord& record) {
    wire::Packet packet;
    EXPECT_TRUE(packet.ParseFromArray(record.packet.data(), static_cast<int>(record.packet.size())));
    return packet;
  }

  bool SocketDirectoryRemoved() const { return std::filesystem::is_empty(tmp_.path()); }
  std::string capture() const { return dir_.File("run.mfc"); }

  test::TempDir dir_;
  test::TempDir tmp_;
};

TEST_F(MemframeRun, RecordsTheProgramAndExitsWithItsStatus) {
  Outcome outcome = Memframe(Run({MEMFRAME_TEST_EXIT_PROGRAM, "exact output\n", "7"}));
  EXPECT_EQ(outcome.status, 7);
  EXPECT_EQ(outcome.out, "exact output\n");
  EXPECT_NE(outcome.err.find("memframe: capture written to " + capture() + " ("), std::string::npos) << outcome.err;
  EXPECT_TRUE(SocketDirectoryRemoved());

  std::vector<wire::CaptureRecord> records = ReadCapture();
  ASSERT_EQ(records.size(), 4u);
  EXPECT_EQ(records[0].stream, 0u);
  wire::RecorderInfo start = Parse(records[0]).recorder();
  EXPECT_FALSE(start.finished());
  EXPECT_EQ(start.command_line(), std::string(MEMFRAME_TEST_EXIT_PROGRAM) + " 'exact output\n' 7");
  EXPECT_NE(start.recorder_version(), "");
  EXPECT_GT(start.start_unix_ns(), 0u);

  EXPECT_EQ(records[1].stream, 1u);
  wire::Packet hello = Parse(records[1]);
  ASSERT_TRUE(hello.has_hello());
  EXPECT_EQ(hello.hello().protocol_version(), wire::kProtocolVersion);
  EXPECT_EQ(hello.hello().executable(), MEMFRAME_TEST_EXIT_PROGRAM);
  EXPECT_EQ(records[2].stream, 1u);
  EXPECT_TRUE(Parse(records[2]).has_end());

  EXPECT_EQ(records[3].stream, 0u);
  wire::RecorderInfo end = Parse(records[3]).recorder();
  EXPECT_TRUE(end.finished());
  EXPECT_EQ(end.exit_status(), 7);
}

TEST_F(MemframeRun, RecordsEveryProcessThatLoadsTheAgent) {
  // sh forks and execs the exit program: a second process with the agent.
  Outcome outcome = Memframe(RunShell(std::string(MEMFRAME_TEST_EXIT_PROGRAM) + " '' 0; exit 3"));
  EXPECT_EQ(outcome.status, 3) << outcome.err;
  std::map<uint32_t, std::vector<wire::Packet>> streams;
  for (auto& record : ReadCapture()) streams[record.stream].push_back(Parse(record));
  ASSERT_EQ(streams.size(), 3u);
  // The shell connected first; it leaves through _exit (dash) or exit
  // (bash), so its EndOfStream depends on which shell /bin/sh is.
  ASSERT_GE(streams[1].size(), 1u);
  ASSERT_EQ(streams[2].size(), 2u);
  EXPECT_EQ(streams[2][0].hello().ppid(), streams[1][0].hello().pid());
  EXPECT_EQ(streams[2][0].hello().executable(), MEMFRAME_TEST_EXIT_PROGRAM);
  EXPECT_TRUE(streams[2][1].has_end());
}

TEST_F(MemframeRun, ReportsDeathBySignalAs128PlusSignal) {
  Outcome outcome = Memframe(RunShell("kill -TERM $$"));
  EXPECT_EQ(outcome.status, 128 + SIGTERM);
  EXPECT_NE(outcome.err.find("memframe: /bin/sh was killed by signal 15 (Terminated)"), std::string::npos)
      << outcome.err;
  std::vector<wire::CaptureRecord> records = ReadCapture();
  ASSERT_FALSE(records.empty());
  EXPECT_EQ(Parse(records.back()).recorder().exit_status(), 128 + SIGTERM);
}

TEST_F(MemframeRun, RefusesWhatItCannotProfileBeforeLaunching) {
  Outcome missing = Memframe({"run", "--agent", MEMFRAME_TEST_FAKE_AGENT, "--", "/nonexistent/game"});
  EXPECT_EQ(missing.status, kExitRunNotFound);
  EXPECT_EQ(missing.err, "memframe: error: /nonexistent/game: No such file or directory\n");

  Outcome no_agent = Memframe({"run", "--agent", dir_.File("missing.so"), "--", "/bin/true"});
  EXPECT_EQ(no_agent.status, kExitRunFailed);
  EXPECT_EQ(no_agent.err, "memframe: error: agent library " + dir_.File("missing.so") +
                              " not found (build the memframe_agent target, or pass --agent PATH)\n");

  std::string static_program = MEMFRAME_TEST_STATIC_PROGRAM;
  if (!static_program.empty()) {
    Outcome refused = Memframe({"run", "--agent", MEMFRAME_TEST_FAKE_AGENT, "-o", capture(), "--", static_program});
    EXPECT_EQ(refused.status, kExitRunFailed);
    EXPECT_EQ(refused.err, "memframe: error: " + static_program +
                               " is statically linked; LD_PRELOAD cannot load the agent into a static program\n");
  }
  EXPECT_FALSE(std::filesystem::exists(capture()));
  EXPECT_TRUE(SocketDirectoryRemoved());
}

// Like env and timeout: 127 when PROGRAM is not there, 126 when it cannot
// be run, 125 when memframe fails; never a status PROGRAM could have given.
TEST_F(MemframeRun, ItsOwnFailuresExitWith125To127) {
  Outcome missing = Memframe({"run", "--agent", MEMFRAME_TEST_FAKE_AGENT, "--", "memframe-no-such-program"});
  EXPECT_EQ(missing.status, 127);
  EXPECT_EQ(missing.err, "memframe: error: memframe-no-such-program: command not found\n");
  std::string not_executable = dir_.File("not-executable");
  std::ofstream(not_executable) << "#!/bin/sh\n";
  Outcome denied = Memframe({"run", "--agent", MEMFRAME_TEST_FAKE_AGENT, "--", not_executable});
  EXPECT_EQ(denied.status, 126);
  EXPECT_EQ(denied.err, "memframe: error: " + not_executable + ": Permission denied\n");
  Outcome usage = Memframe({"run", "--stack-depth=0", "--", "/bin/true"});
  EXPECT_EQ(usage.status, 125);
  EXPECT_EQ(usage.err, "memframe: error: --stack-depth wants a number from 1 to 64, not '0'\n(see memframe run --help)\n");
}

TEST_F(MemframeRun, SaysBeforeLaunchingAProgramWithItsOwnMalloc) {
  std::string program = MEMFRAME_TEST_STATIC_JEMALLOC;
  if (program.empty()) GTEST_SKIP() << "no libjemalloc.a (Debian: libjemalloc-dev)";
  Outcome outcome = Memframe(Run({program}));
  EXPECT_EQ(outcome.status, 0) << outcome.err;
  EXPECT_EQ(outcome.err.rfind("memframe: note: " + program +
                                  " defines its own malloc (statically linked jemalloc), which the loader binds "
                                  "before any preloaded library: the agent patches its entry points before main, "
                                  "and the capture's notes say which it could not; its own API (mallocx, ...) is "
                                  "patched too\n",
                              0),
            0u)
      << outcome.err;

  Outcome ordinary = Memframe(Run({MEMFRAME_TEST_EXIT_PROGRAM, "", "0"}));
  EXPECT_EQ(ordinary.err.find("note"), std::string::npos) << ordinary.err;
}

TEST_F(MemframeRun, CannotCreateTheCaptureMeansTheProgramNeverRuns) {
  std::string marker = dir_.File("ran");
  Outcome outcome = Memframe({"run", "--agent", MEMFRAME_TEST_FAKE_AGENT, "-o", dir_.File("no/such/dir.mfc"), "--",
                              "/bin/sh", "-c", "touch " + marker});
  EXPECT_EQ(outcome.status, kExitRunFailed);
  EXPECT_EQ(outcome.err, "memframe: error: cannot create " + dir_.File("no/such/dir.mfc") + ": No such file or directory\n");
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_TRUE(SocketDirectoryRemoved());
}

// ---- careless commands ----------------------------------------------------------

TEST_F(MemframeRun, CapturesAreReadableByTheUserOnly) {
  umask(022);
  ASSERT_EQ(Memframe(Run({MEMFRAME_TEST_EXIT_PROGRAM, "", "0"})).status, 0);
  struct stat st {};
  ASSERT_EQ(stat(capture().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  // The sockets (agents', live viewers') sit in a directory only we can enter.
  std::filesystem::remove(capture());
  Outcome outcome = Memframe(RunShell("stat -c %a \"$(dirname \"$MEMFRAME_SOCKET\")\""));
  EXPECT_EQ(outcome.out, "700\n");
}

TEST_F(MemframeRun, RefusesToReplaceAnExistingCaptureUnlessForced) {
  std::ofstream(capture()) << "MEMFRAME an earlier run";
  std::string marker = dir_.File("ran");
  Outcome refused = Memframe(RunShell("touch " + marker));
  EXPECT_EQ(refused.status, kExitRunFailed);
  EXPECT_EQ(refused.err, "memframe: error: " + capture() + " holds a memframe capture already (pass --force to replace it)\n");
  EXPECT_EQ(Slurp(capture()), "MEMFRAME an earlier run");
  EXPECT_FALSE(std::filesystem::exists(marker));
  EXPECT_TRUE(SocketDirectoryRemoved());

  std::vector<std::string> forced = Run({MEMFRAME_TEST_EXIT_PROGRAM, "", "5"});
  forced.insert(forced.begin() + 1, "--force");
  Outcome replaced = Memframe(forced);
  EXPECT_EQ(replaced.status, 5) << replaced.err;
  EXPECT_EQ(Parse(ReadCapture().back()).recorder().exit_status(), 5);
  // Nothing left beside it: the new capture was renamed into place.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir_.path()), {}), 3);  // run.mfc, stdout, stderr
}

TEST_F(MemframeRun, NeverWritesTheCaptureOverItsOwnProgram) {
  std::string program = dir_.File("program");
  std::filesystem::copy_file(MEMFRAME_TEST_EXIT_PROGRAM, program);
  std::string before = Slurp(program);
  Outcome outcome = Memframe({"run", "--force", "--agent", MEMFRAME_TEST_FAKE_AGENT, "-o", program, "--", program});
  EXPECT_EQ(outcome.status, kExitRunFailed);
  EXPECT_EQ(outcome.err, "memframe: error: refusing to write " + program + ": it is an input of this command\n");
  EXPECT_EQ(Slurp(program), before);
}

TEST_F(MemframeRun, AFullDiskKeepsTheProgramsStatusAndSaysSoInTheCapture) {
  // The padding cannot fit under the limit; the records before it can.
  setenv("MEMFRAME_FAKE_AGENT_PAD_BYTES", "300000", 1);
  Outcome outcome = Memframe(Run({MEMFRAME_TEST_EXIT_PROGRAM, "", "7"}), "", 64 * 1024);
  unsetenv("MEMFRAME_FAKE_AGENT_PAD_BYTES");
  EXPECT_EQ(outcome.status, 7) << outcome.err;
  EXPECT_NE(outcome.err.find("memframe: cannot write the capture (cannot write " + capture() +
                             ": File too large); the recording stops here\n"),
            std::string::npos)
      << outcome.err;
  EXPECT_NE(outcome.err.find("memframe: the capture " + capture() + " is incomplete (cannot write " + capture() +
                             ": File too large); it holds what was written before that, and says so\n"),
            std::string::npos)
      << outcome.err;
  // What was flushed reads back whole, and its closing record tells.
  std::vector<wire::CaptureRecord> records = ReadCapture();
  ASSERT_GE(records.size(), 2u);
  wire::RecorderInfo end = Parse(records.back()).recorder();
  EXPECT_TRUE(end.finished());
  EXPECT_EQ(end.exit_status(), 7);
  EXPECT_EQ(end.recording_error(), "cannot write " + capture() + ": File too large");
}

TEST_F(MemframeRun, OutputLostToAFullDiskIsAnError) {
  ASSERT_EQ(Memframe(Run({MEMFRAME_TEST_EXIT_PROGRAM, "", "0"})).status, 0);
  Outcome report = Memframe({"report", capture()}, "/dev/full");
  EXPECT_EQ(report.status, 2);
  EXPECT_EQ(report.err, "memframe: error: writing the report: No space left on device\n");
  Outcome version = Memframe({"--version"}, "/dev/full");
  EXPECT_EQ(version.status, 2);
  EXPECT_EQ(version.err, "memframe: error: writing the output: No space left on device\n");
}

TEST_F(MemframeRun, UsageErrorsExitWithTwo) {
  Outcome outcome = Memframe({"frobnicate"});
  EXPECT_EQ(outcome.status, 2);
  EXPECT_EQ(outcome.err.rfind("memframe: error: unknown command 'frobnicate'\n", 0), 0u) << outcome.err;
  Outcome no_program = Memframe({"run"});
  EXPECT_EQ(no_program.status, kExitRunFailed);
  EXPECT_EQ(no_program.err, "memframe: error: no program to run\n(see memframe run --help)\n");
  Outcome version = Memframe({"--version"});
  EXPECT_EQ(version.status, 0);
  EXPECT_EQ(version.out.rfind("memframe ", 0), 0u);
}

}  // namespace
}  // namespace memframe::injector
