// Every `memframe` command reads its options the same way (--opt value and
// --opt=value, memframe/command_line.h) and says a bad one in one form,
// "memframe: error: ...", with a non-zero status: each case here is a value
// a user could type, with the exact message and status it gets.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "cli_common.h"
#include "commands.h"
#include "docs_generator.h"
#include "memframe_process.h"

namespace memframe::injector {
namespace {

class MemframeCli : public ::testing::Test {
 protected:
  Outcome Memframe(std::vector<std::string> args) { return RunMemframe(std::move(args), dir_, tmp_.path()); }
  test::TempDir dir_;
  test::TempDir tmp_;
};

struct Case {
  std::vector<std::string> args;
  std::string message;  // after "memframe: error: "
  int status = kExitMemframeError;
};

std::string HelpHint(const std::string& command) { return "(see memframe " + command + " --help)\n"; }

TEST_F(MemframeCli, BadValuesAreErrorsWithOneMessageForm) {
  const std::vector<Case> usage_cases = {
      {{"export", "c.mfc", "--format=svg", "-o", "x"}, "--format wants pprof, folded, chrome-json or perfetto, not 'svg'"},
      {{"export", "c.mfc", "--format"}, "--format needs a value"},
      {{"export", "c.mfc", "--format", "pprof", "--output="}, "--output needs a value"},
      {{"export", "c.mfc", "--force=yes", "--format", "pprof"}, "--force takes no value"},
      {{"export", "--format", "pprof", "-o", "x"}, "no capture file given"},
      {{"export", "a.mfc", "b.mfc", "--format", "pprof"}, "one capture file only, not 'b.mfc'"},
      {{"export", "c.mfc", "--depth", "3"}, "unknown option '--depth'"},
      {{"check", "c.mfc"}, "no budget given (--budget FILE)"},
      {{"check", "c.mfc", "--budget"}, "--budget needs a value"},
      {{"check", "c.mfc", "--junit=out.xml", "--strict"}, "unknown option '--strict'"},
      {{"compare", "a.mfc", "b.mfc", "--fail-on-regression=-5"},
       "--fail-on-regression wants a percentage of at least 0, not '-5'"},
      {{"compare", "a.mfc", "b.mfc", "--fail-on-regression", "ten"},
       "--fail-on-regression wants a percentage of at least 0, not 'ten'"},
      {{"compare", "a.mfc"}, "two captures needed: BASE and NEW"},
      {{"compare", "a.mfc", "b.mfc", "c.mfc"}, "two captures only, not 'c.mfc'"},
      {{"mark"}, "no socket given"},
      {{"mark", "s", "name", "more"}, "one socket and one name only, not 'more'"},
      {{"detach"}, "no process id"},
      {{"detach", "12x"}, "want one process id, not '12x'"},
      {{"attach"}, "no process id"},
      {{"attach", "--duration=0", "1"}, "--duration wants seconds, more than 0, not '0'"},
      {{"attach", "--stack-depth", "65", "1"}, "--stack-depth wants a number from 1 to 64, not '65'"},
      {{"attach", "--frame-source=vsync", "1"},
       "--frame-source wants auto, slices or one of the presents glfwSwapBuffers, glXSwapBuffers, eglSwapBuffers, "
       "SDL_GL_SwapWindow, SDL_GL_SwapBuffers, SDL_RenderPresent, SDL_UpdateWindowSurface, SDL_Flip, "
       "SDL_UpdateRect, SDL_UpdateRects, vkQueuePresentKHR, or of a Windows game (wine memframe.exe run) "
       "SwapBuffers, wglSwapBuffers, wglSwapLayerBuffers, vkQueuePresentKHR, IDXGISwapChain::Present, not 'vsync'"},
      {{"attach", "--follow-fork", "1"},
       "--follow-fork applies to `memframe run` only: an attach records the one process it was injected into: its "
       "detach could not reach a forked child, which would keep the patched imports"},
      {{"attach", "--no-follow-exec", "1"},
       "--no-follow-exec applies to `memframe run` only: the programs an attached process execs never have the "
       "agent (it was injected, not preloaded)"},
      {{"run", "--time-slice=60001", "--", "/bin/true"}, "--time-slice wants milliseconds from 0 to 60000, not '60001'",
       kExitRunFailed},
      {{"run", "--frame-source", "vsync", "/bin/true"},
       "--frame-source wants auto, slices or one of the presents glfwSwapBuffers, glXSwapBuffers, eglSwapBuffers, "
       "SDL_GL_SwapWindow, SDL_GL_SwapBuffers, SDL_RenderPresent, SDL_UpdateWindowSurface, SDL_Flip, "
       "SDL_UpdateRect, SDL_UpdateRects, vkQueuePresentKHR, or of a Windows game (wine memframe.exe run) "
       "SwapBuffers, wglSwapBuffers, wglSwapLayerBuffers, vkQueuePresentKHR, IDXGISwapChain::Present, not 'vsync'",
       kExitRunFailed},
      {{"report"}, "no capture file given"},
  };
  for (const Case& c : usage_cases) {
    if (!FindCommand(c.args[0])) continue;  // built without the analysis
    Outcome outcome = Memframe(c.args);
    EXPECT_EQ(outcome.status, c.status) << c.args[0] << " " << c.message;
    EXPECT_EQ(outcome.err, "memframe: error: " + c.message + "\n" + HelpHint(c.args[0])) << outcome.err;
    EXPECT_EQ(outcome.out, "");
  }
  // A report's options are read from the registry before the capture is:
  // these need none.
  const std::vector<Case> report_cases = {
      {{"report", "c.mfc", "hidden", "--from=1x"}, "--from wants a frame number, not '1x'"},
      {{"report", "c.mfc", "hidden", "--min-fraction", "2"}, "--min-fraction wants a number in (0, 1], not '2'"},
      {{"report", "c.mfc", "hidden", "--all-frames=no"}, "--all-frames takes no value"},
      {{"report", "c.mfc", "fragmentation", "--color=red"}, "--color wants 'age' or 'site', not 'red'"},
      {{"report", "c.mfc", "sites", "--thread"}, "--thread needs a value"},
      {{"report", "c.mfc", "phases", "--from", "3"},
       "report 'phases' does not take '--from' (memframe report CAPTURE phases --help lists its options)"},
      {{"report", "c.mfc", "leaks", "--only=gpu"}, "--only: unknown class 'gpu' (classes: game, engine, driver, system)"},
      {{"report", "c.mfc", "histogram", "--frame=3", "--to=4"},
       "--frame selects one frame; it cannot be combined with --from or --to"},
      {{"report", "c.mfc", "frames", "--from=9", "--to=3"}, "--from 9 is after --to 3"},
  };
  for (const Case& c : report_cases) {
    if (!FindCommand("report")) break;
    Outcome outcome = Memframe(c.args);
    EXPECT_EQ(outcome.status, c.status) << c.message;
    EXPECT_EQ(outcome.err, "memframe: error: " + c.message + "\n") << outcome.err;
  }
}

// A session file that a killed `memframe attach` left behind may name a
// pid that is now another memframe's: detach must not signal that one.
TEST_F(MemframeCli, DetachTrustsNoStaleSessionFile) {
  if (!FindCommand("check")) return;
  // An unrelated memframe, busy for a few seconds: a check whose budget is
  // a FIFO nobody writes.
  const std::string fifo = dir_.File("budget.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  test::TempDir other_dir;
  pid_t other = StartMemframe({"check", "none.mfc", "--budget", fifo}, other_dir, tmp_.path());
  // It runs once its executable is memframe's.
  for (int i = 0; i < 200 && std::filesystem::read_symlink("/proc/" + std::to_string(other) + "/exe").filename() !=
                                 "memframe";
       ++i)
    usleep(10 * 1000);
  // The file of a recording of this test's own process, by a memframe of
  // that pid, as it was written before (no start time) and with a wrong one.
  const std::string sessions = tmp_.path() + "/memframe-attach-" + std::to_string(geteuid());
  ASSERT_EQ(mkdir(sessions.c_str(), 0700), 0);
  for (const std::string& text : {std::to_string(other) + "\n", std::to_string(other) + " 1\n"}) {
    std::ofstream(sessions + "/" + std::to_string(getpid())) << text;
    Outcome detach = Memframe({"detach", std::to_string(getpid())});
    EXPECT_EQ(detach.status, kExitMemframeError);
    EXPECT_EQ(detach.err, "memframe: error: no `memframe attach " + std::to_string(getpid()) + "` of yours is recording\n");
  }
  // The other memframe was left alone: it ends as its own command does.
  Outcome untouched = FinishMemframe(other, other_dir);
  EXPECT_EQ(untouched.status, 2) << untouched.err;
  EXPECT_EQ(untouched.err, "memframe: error: cannot read budget " + fifo + ": nothing came from it in 5 s\n");
}

// --help on every command and report prints its usage on stdout and exits
// 0; --version after any command prints the version.
TEST_F(MemframeCli, HelpAndVersionOnEveryCommand) {
  for (const Command& command : Commands()) {
    Outcome help = Memframe({command.name, "--help"});
    EXPECT_EQ(help.status, 0) << command.name << help.err;
    EXPECT_EQ(help.out.rfind("usage: memframe " + command.name, 0), 0u) << help.out;
    Outcome version = Memframe({command.name, "--version"});
    EXPECT_EQ(version.status, 0) << command.name;
    EXPECT_EQ(version.out, std::string("memframe ") + kMemframeVersion + "\n");
  }
  if (!FindCommand("report")) return;
  Outcome report_help = Memframe({"report", "c.mfc", "hidden", "-h"});
  EXPECT_EQ(report_help.status, 0);
  EXPECT_EQ(report_help.out.rfind("usage: memframe report CAPTURE hidden", 0), 0u) << report_help.out;
}

// Every option a command's --help (and so its man page and completion)
// names is one its parser takes: the help is written by hand, the parser
// reads the command's option table.
TEST_F(MemframeCli, EveryOptionTheHelpNamesIsTaken) {
  for (const Command& command : Commands()) {
    for (const std::string& option : OptionsInUsage(command)) {
      Outcome outcome = Memframe({command.name, option});
      EXPECT_EQ(outcome.err.find("unknown option"), std::string::npos)
          << "memframe " << command.name << " " << option << ": " << outcome.err;
      EXPECT_EQ(outcome.err.find("does not take"), std::string::npos)
          << "memframe " << command.name << " " << option << ": " << outcome.err;
    }
  }
}

}  // namespace
}  // namespace memframe::injector
