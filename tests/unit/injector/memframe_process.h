// Runs the memframe binary (MEMFRAME_TEST_BINARY) as a user would, and keeps
// its exit status, stdout and stderr: the harness of the tests that check
// what the commands print and how they exit, and that none of them hangs.
#pragma once

#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <csignal>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "fake_agent_client.h"

namespace memframe::injector {

struct Outcome {
  int status = -1;  // the exit status, or 1000 + the signal that ended it
  std::string out, err;
  bool timed_out = false;  // killed at the time limit
};

inline std::string Slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// Starts memframe ARGS with its output in files of `dir` and TMPDIR=`tmpdir`
// (where its private socket directories go). `stdout_path` other than "":
// stdout goes there (/dev/full). `file_size_limit` > 0: files memframe
// writes may not grow past it (a full disk without a mount: writes fail
// with EFBIG).
inline pid_t StartMemframe(std::vector<std::string> args, const test::TempDir& dir, const std::string& tmpdir,
                           const std::string& stdout_path = "", rlim_t file_size_limit = 0) {
  std::string out = dir.File("stdout"), err = dir.File("stderr");
  pid_t pid = fork();
  if (pid == 0) {
    int out_fd = open(stdout_path.empty() ? out.c_str() : stdout_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int err_fd = open(err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    dup2(out_fd, 1);
    dup2(err_fd, 2);
    if (file_size_limit > 0) {
      signal(SIGXFSZ, SIG_IGN);
      rlimit limit{file_size_limit, file_size_limit};
      setrlimit(RLIMIT_FSIZE, &limit);
    }
    setenv("TMPDIR", tmpdir.c_str(), 1);
    unsetenv("MEMFRAME_AGENT");
    std::vector<char*> argv{const_cast<char*>(MEMFRAME_TEST_BINARY)};
    for (auto& arg : args) argv.push_back(arg.data());
    argv.push_back(nullptr);
    execv(MEMFRAME_TEST_BINARY, argv.data());
    _exit(126);
  }
  return pid;
}

// Waits for a memframe StartMemframe started, killing it after `seconds`
// (a command that hangs is a failure, not a test that never ends).
inline Outcome FinishMemframe(pid_t pid, const test::TempDir& dir, int seconds = 120) {
  Outcome outcome;
  int raw = 0;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  while (waitpid(pid, &raw, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      outcome.timed_out = true;
      kill(pid, SIGKILL);
      waitpid(pid, &raw, 0);
      break;
    }
    usleep(10 * 1000);
  }
  outcome.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : 1000 + WTERMSIG(raw);
  outcome.out = Slurp(dir.File("stdout"));
  outcome.err = Slurp(dir.File("stderr"));
  return outcome;
}

inline Outcome RunMemframe(std::vector<std::string> args, const test::TempDir& dir, const std::string& tmpdir,
                           const std::string& stdout_path = "", rlim_t file_size_limit = 0) {
  return FinishMemframe(StartMemframe(std::move(args), dir, tmpdir, stdout_path, file_size_limit), dir);
}

}  // namespace memframe::injector
