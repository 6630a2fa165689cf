// Files that are not plain files, given where a command writes or reads: a
// FIFO no process reads, a reader that stops reading, a budget that never
// ends (/dev/zero) or never comes (a FIFO nobody writes): each is a clear
// message in bounded time, and Ctrl+C or SIGTERM always ends `memframe
// run`. /dev/stdout and "-" are the command's standard output, written
// where it points and never replaced.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include "cli_common.h"
#include "commands.h"
#include "memframe_process.h"

namespace memframe::injector {
namespace {

// Well under the harness's own limit: each case here finishes in a second
// or two when nothing hangs.
constexpr int kLimitSeconds = 30;

class AwkwardFiles : public ::testing::Test {
 protected:
  Outcome Memframe(std::vector<std::string> args) {
    return FinishMemframe(StartMemframe(std::move(args), dir_, tmp_.path()), dir_, kLimitSeconds);
  }
  std::string Fifo(const std::string& name) {
    std::string path = dir_.File(name);
    EXPECT_EQ(mkfifo(path.c_str(), 0600), 0);
    return path;
  }
  std::vector<std::string> Run(const std::string& output, std::vector<std::string> command) {
    std::vector<std::string> args = {"run", "--no-summary", "--no-live", "--agent", MEMFRAME_TEST_FAKE_AGENT,
                                     "-o",  output,         "--"};
    args.insert(args.end(), command.begin(), command.end());
    return args;
  }
  // A small real capture to read.
  std::string Capture() {
    std::string path = dir_.File("c.mfc");
    Outcome run = Memframe(Run(path, {MEMFRAME_TEST_EXIT_PROGRAM, "", "0"}));
    EXPECT_EQ(run.status, 0) << run.err;
    return path;
  }
  std::string Budget() {
    std::string path = dir_.File("budget.json");
    std::ofstream(path) << R"({"leaks": {"blocks": 0}})";
    return path;
  }
  test::TempDir dir_;
  test::TempDir tmp_;
};

TEST_F(AwkwardFiles, AFifoNoProcessReadsIsRefusedAtOnce) {
  const std::string fifo = Fifo("out.fifo");
  Outcome run = Memframe(Run(fifo, {MEMFRAME_TEST_EXIT_PROGRAM, "ran\n", "0"}));
  ASSERT_FALSE(run.timed_out) << "memframe run hung on a FIFO no process reads";
  EXPECT_EQ(run.status, kExitRunFailed);
  EXPECT_EQ(run.err, "memframe: error: cannot write " + fifo + ": it is a FIFO that no process is reading\n");
  EXPECT_EQ(run.out, "");  // the program never ran
  if (!FindCommand("export")) return;  // built without the analysis
  const std::string capture = Capture();
  Outcome exported = Memframe({"export", capture, "--format", "folded", "-o", fifo});
  ASSERT_FALSE(exported.timed_out);
  EXPECT_EQ(exported.status, 2);
  EXPECT_EQ(exported.err, "memframe: error: cannot write " + fifo + ": it is a FIFO that no process is reading\n");
  Outcome checked = Memframe({"check", capture, "--budget", Budget(), "--junit", fifo});
  ASSERT_FALSE(checked.timed_out);
  EXPECT_EQ(checked.status, 2);
  EXPECT_EQ(checked.err, "memframe: error: cannot write " + fifo + ": it is a FIFO that no process is reading\n");
}

// A reader that opened the FIFO and never reads: the recorder's writes
// wait, the program's agent waits on the recorder, and a signal must still
// end it all.
void RunIntoAStalledReader(const std::vector<std::string>& args, int signal_number, const test::TempDir& dir,
                           const std::string& tmp, const std::string& fifo, Outcome* outcome) {
  int reader = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  ASSERT_GE(reader, 0);
  // More than the pipe and the sockets hold, in bytes that do not compress.
  setenv("MEMFRAME_FAKE_AGENT_PAD_BYTES", "4000000", 1);
  pid_t pid = StartMemframe(args, dir, tmp);
  unsetenv("MEMFRAME_FAKE_AGENT_PAD_BYTES");
  // Until the pipe is full: memframe is then stuck behind it.
  for (int i = 0; i < 500; ++i) {
    int queued = 0;
    if (ioctl(reader, FIONREAD, &queued) == 0 && queued >= 65536) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  std::this_thread::sleep_for(std::chrono::milliseconds(200));
  kill(pid, signal_number);
  *outcome = FinishMemframe(pid, dir, kLimitSeconds);
  close(reader);
}

TEST_F(AwkwardFiles, SigtermEndsARunWhoseCaptureReaderStalled) {
  const std::string fifo = Fifo("stalled.fifo");
  Outcome run;
  RunIntoAStalledReader(Run(fifo, {MEMFRAME_TEST_EXIT_PROGRAM, "", "0"}), SIGTERM, dir_, tmp_.path(), fifo, &run);
  ASSERT_FALSE(run.timed_out) << "memframe run ignored SIGTERM while its capture's reader stalled";
  // The program was ended by the SIGTERM memframe forwarded, or had ended.
  EXPECT_TRUE(run.status == 128 + SIGTERM || run.status == 0) << run.status << run.err;
  EXPECT_NE(run.err.find("memframe: the capture " + fifo + " is incomplete (cannot write " + fifo +
                         ": interrupted while it took no more data)"),
            std::string::npos)
      << run.err;
}

TEST_F(AwkwardFiles, CtrlCEndsARunWhoseCaptureReaderStalled) {
  const std::string fifo = Fifo("stalled.fifo");
  Outcome run;
  // SIGINT to memframe alone (a terminal sends it to the program too):
  // the program, held by the recorder, goes on once memframe gives up.
  RunIntoAStalledReader(Run(fifo, {MEMFRAME_TEST_EXIT_PROGRAM, "", "3"}), SIGINT, dir_, tmp_.path(), fifo, &run);
  ASSERT_FALSE(run.timed_out) << "memframe run ignored Ctrl+C while its capture's reader stalled";
  EXPECT_EQ(run.status, 3) << run.err;
  EXPECT_NE(run.err.find("interrupted while it took no more data"), std::string::npos) << run.err;
}

TEST_F(AwkwardFiles, ABudgetThatNeverEndsOrNeverComesIsTheBudgetsFault) {
  if (!FindCommand("check")) return;
  const std::string capture = Capture();
  Outcome endless = Memframe({"check", capture, "--budget", "/dev/zero"});
  ASSERT_FALSE(endless.timed_out);
  EXPECT_EQ(endless.status, 2);
  EXPECT_EQ(endless.err, "memframe: error: budget /dev/zero is larger than 1 MiB; a budget is a small JSON file\n");
  // A FIFO no process writes: given up after a few seconds.
  const std::string fifo = Fifo("budget.fifo");
  Outcome unwritten = Memframe({"check", capture, "--budget", fifo});
  ASSERT_FALSE(unwritten.timed_out) << "memframe check hung on a budget FIFO";
  EXPECT_EQ(unwritten.status, 2);
  EXPECT_EQ(unwritten.err, "memframe: error: cannot read budget " + fifo + ": nothing came from it in 5 s\n");
  // One written by another process (bash's <(...)) is read.
  pid_t writer = fork();
  if (writer == 0) {
    int fd = open(fifo.c_str(), O_WRONLY);
    const char text[] = R"({"leaks": {"blocks": 0}})";
    ssize_t ignored = write(fd, text, sizeof(text) - 1);
    (void)ignored;
    _exit(0);
  }
  Outcome piped = Memframe({"check", capture, "--budget", fifo});
  waitpid(writer, nullptr, 0);
  ASSERT_FALSE(piped.timed_out);
  EXPECT_EQ(piped.status, 0) << piped.err;
}

// As root, a rename over /dev/stdout replaced the link for every process of
// the machine; "-" wrote a file named "-".
TEST_F(AwkwardFiles, StandardOutputIsWrittenWhereItPointsNeverReplaced) {
  if (!FindCommand("export")) return;
  const std::string capture = Capture();
  struct stat before {};
  ASSERT_EQ(lstat("/dev/stdout", &before), 0);
  for (const std::string output : {"/dev/stdout", "-"}) {
    const std::string text = dir_.File("stdout.txt");
    std::ofstream(text) << "kept\n";
    // The shell's >>: appended at its offset.
    int fd = open(text.c_str(), O_WRONLY | O_APPEND | O_CLOEXEC);
    ASSERT_GE(fd, 0);
    pid_t pid = fork();
    if (pid == 0) {
      dup2(fd, 1);
      execl(MEMFRAME_TEST_BINARY, "memframe", "export", capture.c_str(), "--format", "chrome-json", "-o", output.c_str(),
            static_cast<char*>(nullptr));
      _exit(126);
    }
    close(fd);
    int status = 0;
    waitpid(pid, &status, 0);
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << output;
    const std::string written = Slurp(text);
    EXPECT_EQ(written.rfind("kept\n", 0), 0u) << written;
    EXPECT_NE(written.find("\"traceEvents\""), std::string::npos) << output << ": " << written;
    EXPECT_FALSE(std::filesystem::exists("-"));
  }
  struct stat after {};
  ASSERT_EQ(lstat("/dev/stdout", &after), 0);
  EXPECT_TRUE(S_ISLNK(after.st_mode));
  EXPECT_EQ(after.st_ino, before.st_ino);
}

}  // namespace
}  // namespace memframe::injector
